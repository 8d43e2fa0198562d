package workgen

import (
	"math"
	"testing"
)

// The moment checks: a sample's mean and variance against the analytic
// ones, each within 3 standard errors. The standard error of the mean is
// sqrt(var/n); that of the variance sqrt((mu4 - var^2)/n), mu4 the
// fourth central moment.

// raw are the raw moments E[X^k], k = 1..4 (index 0 unused).
type raw [5]float64

func (m raw) mean() float64     { return m[1] }
func (m raw) variance() float64 { return m[2] - m[1]*m[1] }

// mu4 is the fourth central moment.
func (m raw) mu4() float64 {
	a := m[1]
	return m[4] - 4*a*m[3] + 6*a*a*m[2] - 3*a*a*a*a
}

// pmfRaw are the raw moments of a distribution over integers.
func pmfRaw(p map[int]float64) raw {
	var m raw
	for n, q := range p {
		for k := 1; k <= 4; k++ {
			m[k] += q * math.Pow(float64(n), float64(k))
		}
	}
	return m
}

// checkMoments fails t when the sample's mean or variance is more than 3
// standard errors from the model's.
func checkMoments(t *testing.T, what string, xs []float64, want raw) {
	t.Helper()
	n := float64(len(xs))
	var s1 float64
	for _, x := range xs {
		s1 += x
	}
	mean := s1 / n
	var s2 float64
	for _, x := range xs {
		s2 += (x - mean) * (x - mean)
	}
	variance := s2 / (n - 1)
	wm, wv := want.mean(), want.variance()
	seMean := math.Sqrt(wv / n)
	seVar := math.Sqrt(max(0, want.mu4()-wv*wv) / n)
	t.Logf("%s: mean %.6g (want %.6g, se %.3g), variance %.6g (want %.6g, se %.3g), n=%d",
		what, mean, wm, seMean, variance, wv, seVar, len(xs))
	if math.Abs(mean-wm) > 3*seMean {
		t.Errorf("%s: mean %.6g, want %.6g ± 3 x %.3g", what, mean, wm, seMean)
	}
	if math.Abs(variance-wv) > 3*seVar {
		t.Errorf("%s: variance %.6g, want %.6g ± 3 x %.3g", what, variance, wv, seVar)
	}
}

const draws = 100_000

func TestSamplerMoments(t *testing.T) {
	r := newRand("test", 1)
	gammaRaw := func(a, b float64) raw {
		var m raw
		for k := 1; k <= 4; k++ {
			lg1, _ := math.Lgamma(a + float64(k))
			lg0, _ := math.Lgamma(a)
			m[k] = math.Pow(b, float64(k)) * math.Exp(lg1-lg0)
		}
		return m
	}
	weibullRaw := func(scale, shape float64) raw {
		var m raw
		for k := 1; k <= 4; k++ {
			m[k] = math.Pow(scale, float64(k)) * math.Gamma(1+float64(k)/shape)
		}
		return m
	}
	logNormalRaw := func(mu, sigma float64) raw {
		var m raw
		for k := 1.0; k <= 4; k++ {
			m[int(k)] = math.Exp(k*mu + k*k*sigma*sigma/2)
		}
		return m
	}
	normalRaw := func(mu, s float64) raw {
		return raw{0, mu, mu*mu + s*s, mu*mu*mu + 3*mu*s*s, mu*mu*mu*mu + 6*mu*mu*s*s + 3*s*s*s*s}
	}
	cases := []struct {
		name string
		draw func() float64
		want raw
	}{
		// gamma: mean k theta, variance k theta^2 (0.5 x 2 = 1, 2)
		{"gamma(0.5,2)", func() float64 { return gammaDraw(r, 0.5, 2) }, gammaRaw(0.5, 2)},
		{"gamma(4.2,0.94)", func() float64 { return gammaDraw(r, 4.2, 0.94) }, gammaRaw(4.2, 0.94)},
		{"gamma(639.1,0.0156)", func() float64 { return gammaDraw(r, 639.1, 0.0156) }, gammaRaw(639.1, 0.0156)},
		// Weibull(scale 1.76, shape 2.11): mean 1.76 Γ(1.474) = 1.559
		{"weibull(1.76,2.11)", func() float64 { return weibull(r, 1.76, 2.11) }, weibullRaw(1.76, 2.11)},
		{"weibull(4.5,0.35)", func() float64 { return weibull(r, 4.5, 0.35) }, weibullRaw(4.5, 0.35)},
		{"weibull(1.7,7.86)", func() float64 { return weibull(r, 1.7, 7.86) }, weibullRaw(1.7, 7.86)},
		// log-normal(5, 1): mean e^5.5 = 244.7
		{"lognormal(5,1)", func() float64 { return logNormal(r, 5, 1) }, logNormalRaw(5, 1)},
		{"normal(90,6.1)", func() float64 { return normal(r, 90, 6.1) }, normalRaw(90, 6.1)},
		// uniform [2, 4]: mean 3, variance 4/12
		{"uniform(2,4)", func() float64 { return uniform(r, 2, 4) }, raw{0, 3, 28.0 / 3, 30, 1984.0 / 20}},
	}
	for _, c := range cases {
		xs := make([]float64, draws)
		for i := range xs {
			xs[i] = c.draw()
		}
		checkMoments(t, c.name, xs, c.want)
	}
}

func TestLogUniform2(t *testing.T) {
	r := newRand("test", 2)
	cases := []struct {
		name string
		d    logUniform2
	}{
		{"das2 C64", logUniform2{Low: 0.8, Med: 2.5, High: 6, Q: 0.9, POne: 0.3, PPow2: 0.6, Cap: 64}},
		{"das2 grid m=3.5", logUniform2{Low: 0.8, Med: 3.5, High: 6, Q: 0.9, POne: 0.2, PPow2: 0.5, Cap: 64}},
		{"lublin round, cap 32", logUniform2{Low: 0.8, Med: 2.5, High: 5, Q: 0.86, POne: 0.244, PPow2: 0.576, RoundPow2: true, Cap: 32}},
		// a first stage of no width: r = 0.8 with probability 0.9
		{"das2 grid m=0.8", logUniform2{Low: 0.8, Med: 0.8, High: 6, Q: 0.9, POne: 0.2, PPow2: 0.5, Cap: 256}},
	}
	for _, c := range cases {
		p := c.d.pmf()
		total := 0.0
		for _, q := range p {
			total += q
		}
		if math.Abs(total-1) > 1e-9 {
			t.Errorf("%s: pmf sums to %v", c.name, total)
		}
		xs := make([]float64, draws)
		for i := range xs {
			xs[i] = float64(c.d.draw(r))
		}
		checkMoments(t, c.name, xs, pmfRaw(p))
	}
}

// A hand-worked pmf: r uniform on [0, 1] (Q = 1, Med = 1), no serial
// jobs, P_pow2 = 0.5. Powers of two: ceil(r) = 1 almost surely, size 2
// with 0.5. Otherwise round(2^r): 1 for 2^r < 1.5, r < log2 1.5 = 0.585,
// and 2 above: 0.5 x 0.585 = 0.2925 on 1, 0.5 x 0.415 = 0.2075 on 2.
func TestLogUniform2PMFByHand(t *testing.T) {
	d := logUniform2{Low: 0, Med: 1, High: 1, Q: 1, PPow2: 0.5}
	p := d.pmf()
	want := map[int]float64{1: 0.5 * math.Log2(1.5), 2: 0.5 + 0.5*(1-math.Log2(1.5))}
	for n, q := range want {
		if math.Abs(p[n]-q) > 1e-12 {
			t.Errorf("P(%d) = %v, want %v", n, p[n], q)
		}
	}
	if len(p) != 2 {
		t.Errorf("pmf %v, want only sizes 1 and 2", p)
	}
}
