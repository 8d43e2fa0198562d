package workgen

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// The distributions the models draw from, written out here rather than
// taken from gonum's distuv: each is a few lines, they draw from
// math/rand/v2 directly, and a gonum upgrade that changed a sampler's
// algorithm would silently change every generated file.

// newRand is the one generator of a run: a PCG source seeded by the seed
// and a hash of the model's name, so two models with the same seed draw
// different streams.
func newRand(model string, seed uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(model))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// uniform draws from U[a, b).
func uniform(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

// normal draws from N(mu, sigma^2).
func normal(r *rand.Rand, mu, sigma float64) float64 { return mu + sigma*r.NormFloat64() }

// logNormal draws e^X with X ~ N(mu, sigma^2): mean e^(mu+sigma^2/2).
func logNormal(r *rand.Rand, mu, sigma float64) float64 { return math.Exp(normal(r, mu, sigma)) }

// logNormalMoments are the mean and variance of logNormal(mu, sigma).
func logNormalMoments(mu, sigma float64) (mean, variance float64) {
	s2 := sigma * sigma
	return math.Exp(mu + s2/2), (math.Exp(s2) - 1) * math.Exp(2*mu+s2)
}

// weibull draws from the Weibull distribution of the given scale and
// shape, by inversion: scale (-ln U)^(1/shape).
func weibull(r *rand.Rand, scale, shape float64) float64 {
	u := 1 - r.Float64() // (0, 1]
	return scale * math.Pow(-math.Log(u), 1/shape)
}

// weibullMoments are the mean scale Γ(1+1/k) and variance
// scale^2 (Γ(1+2/k) - Γ(1+1/k)^2) of weibull(scale, k).
func weibullMoments(scale, shape float64) (mean, variance float64) {
	g1, g2 := math.Gamma(1+1/shape), math.Gamma(1+2/shape)
	return scale * g1, scale * scale * (g2 - g1*g1)
}

// gammaDraw draws from the gamma distribution of the given shape and
// scale (mean shape*scale, variance shape*scale^2), by Marsaglia and
// Tsang's method (ACM TOMS 26(3), 2000); a shape below 1 draws with
// shape+1 and multiplies by U^(1/shape).
func gammaDraw(r *rand.Rand, shape, scale float64) float64 {
	if shape < 1 {
		u := 1 - r.Float64()
		return gammaDraw(r, shape+1, scale) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v * scale
		}
	}
}

// gammaPDF is the density of the gamma distribution at x.
func gammaPDF(x, shape, scale float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(shape)
	return math.Exp((shape-1)*math.Log(x) - x/scale - lg - shape*math.Log(scale))
}

// logUniform2 is the two-stage log-uniform size distribution of
// docs/workloads.md §2 (after Lublin and Feitelson): r is uniform on
// [Low, Med] with probability Q, else on [Med, High]; the size is 1 with
// probability POne, a power of two with probability PPow2 (2^ceil(r), or
// 2^round(r) when RoundPow2), and round(2^r) otherwise, capped at Cap
// (when Cap > 0).
type logUniform2 struct {
	Low, Med, High, Q float64
	POne, PPow2       float64
	RoundPow2         bool
	Cap               int
}

// draw draws one size.
func (d logUniform2) draw(rng *rand.Rand) int {
	u := rng.Float64()
	var r float64
	if rng.Float64() < d.Q {
		r = uniform(rng, d.Low, d.Med)
	} else {
		r = uniform(rng, d.Med, d.High)
	}
	var n float64
	switch {
	case u < d.POne:
		n = 1
	case u < d.POne+d.PPow2:
		if d.RoundPow2 {
			n = math.Exp2(math.Round(r))
		} else {
			n = math.Exp2(math.Ceil(r))
		}
	default:
		n = math.Round(math.Exp2(r))
	}
	return d.cap(max(1, int(n)))
}

func (d logUniform2) cap(n int) int {
	if d.Cap > 0 && n > d.Cap {
		return d.Cap
	}
	return n
}

// pmf is the exact distribution of the size: P(size = n) by n, computed
// by splitting each uniform stage at the points where the rounding
// changes (integrating the uniform density piece by piece).
func (d logUniform2) pmf() map[int]float64 {
	p := map[int]float64{}
	p[d.cap(1)] += d.POne
	stage := func(a, b, w float64) {
		if w == 0 {
			return
		}
		if b <= a { // a stage of no width: r = a
			n := math.Ceil(a)
			if d.RoundPow2 {
				n = math.Round(a)
			}
			p[d.cap(int(math.Exp2(n)))] += w * d.PPow2
			p[d.cap(max(1, int(math.Round(math.Exp2(a)))))] += w * (1 - d.POne - d.PPow2)
			return
		}
		// power of two: 2^ceil(r) (or 2^round(r)) is constant between
		// integers (or half-integers).
		off := 0.0
		if d.RoundPow2 {
			off = 0.5
		}
		for k := math.Floor(a - off); k <= math.Ceil(b); k++ {
			lo, hi := max(a, k+off), min(b, k+off+1)
			if hi > lo {
				// ceil(r) = k+1 on (k, k+1]; round(r) = k+1 on [k+.5, k+1.5)
				p[d.cap(int(math.Exp2(k+1)))] += w * d.PPow2 * (hi - lo) / (b - a)
			}
		}
		// round(2^r) = n for 2^r in [n-0.5, n+0.5).
		rest := 1 - d.POne - d.PPow2
		for n := max(1, int(math.Round(math.Exp2(a)))); float64(n)-0.5 < math.Exp2(b); n++ {
			lo, hi := max(a, math.Log2(float64(n)-0.5)), min(b, math.Log2(float64(n)+0.5))
			if hi > lo {
				p[d.cap(n)] += w * rest * (hi - lo) / (b - a)
			}
		}
	}
	stage(d.Low, d.Med, d.Q)
	stage(d.Med, d.High, 1-d.Q)
	return p
}

// moments are the exact mean and variance of the size.
func (d logUniform2) moments() (mean, variance float64) {
	return pmfMoments(d.pmf())
}

// sourceMean is the source's approximation of the mean size (the
// Grid'5000/DAS-2 study's formula, docs/workloads.md §2): 2^r taken at
// r = (q l + m + (1-q) h)/2.
func (d logUniform2) sourceMean() float64 {
	r := (d.Q*d.Low + d.Med + (1-d.Q)*d.High) / 2
	return d.POne + math.Exp2(math.Ceil(r))*d.PPow2 + math.Exp2(r)*(1-d.POne-d.PPow2)
}

// pmfMoments are the mean and variance of a distribution over integers.
func pmfMoments(p map[int]float64) (mean, variance float64) {
	var m1, m2 float64
	for n, q := range p {
		m1 += float64(n) * q
		m2 += float64(n) * float64(n) * q
	}
	return m1, m2 - m1*m1
}
