package queueing

import (
	"math"

	"github.com/bora-sched/bora/fielderr"
)

// maxTailTerms bounds the terms Arrivals.LogTails sums beyond its last
// index before it closes the sum with a geometric bound.
const maxTailTerms = 1 << 16

// Arrivals is the law of the number N of Poisson arrivals at a given rate
// during one service (docs/models.md §4): a_k = P(N = k). For a Gamma
// service of shape s and scale theta it is the negative binomial
//
//	a_k = Gamma(k+s) / (k! Gamma(s)) * x^k / (1+x)^(k+s),  x = rate*theta,
//
// and for a deterministic service of length m it is Poisson(rate*m). With
// rate 0, a_0 = 1. Build one with NewArrivals.
type Arrivals struct {
	none  bool    // rate 0: N = 0 surely
	det   bool    // deterministic service: Poisson(m)
	shape float64 // Gamma shape s
	logQ  float64 // log(x/(1+x))
	logA0 float64 // log a_0 = -s*log1p(x), or -m
	lgS   float64 // lgamma(s)
	m     float64 // Poisson mean rate*m
	q     float64 // x/(1+x)
}

// NewArrivals returns the law of the number of Poisson arrivals at rate
// during one service s. It returns an ErrInvalid error naming "rate",
// "service.mean" or "service.cv" for a bad input, or "rate" when
// rate times the service scale overflows.
func NewArrivals(rate float64, s Service) (Arrivals, error) {
	if err := checkNonNegative("rate", rate); err != nil {
		return Arrivals{}, err
	}
	if err := s.check(); err != nil {
		return Arrivals{}, err
	}
	if rate == 0 {
		return Arrivals{none: true}, nil
	}
	if s.CV == 0 || 1/(s.CV*s.CV) > math.MaxFloat64/2 {
		m := rate * s.Mean
		if math.IsInf(m, 0) {
			return Arrivals{}, fielderr.Wrap(ErrInvalid, "rate", "rate*service.mean overflows (%g*%g)", rate, s.Mean)
		}
		if m == 0 {
			return Arrivals{none: true}, nil
		}
		return Arrivals{det: true, m: m, logA0: -m}, nil
	}
	g, err := FitGamma(s.Mean, s.CV)
	if err != nil {
		return Arrivals{}, fielderr.Wrap(ErrInvalid, "service.cv", "%v", err)
	}
	x := rate * g.Scale
	if math.IsInf(x, 0) {
		return Arrivals{}, fielderr.Wrap(ErrInvalid, "rate", "rate*scale overflows (%g*%g)", rate, g.Scale)
	}
	if x == 0 {
		return Arrivals{none: true}, nil
	}
	lgS, _ := math.Lgamma(g.Shape)
	if logA0 := -g.Shape * math.Log1p(x); math.IsInf(logA0, 0) {
		return Arrivals{}, fielderr.Wrap(ErrInvalid, "rate", "rate %g with service shape %g: a_0 underflows even in log space", rate, g.Shape)
	}
	return Arrivals{
		shape: g.Shape,
		logQ:  math.Log(x) - math.Log1p(x),
		logA0: -g.Shape * math.Log1p(x),
		lgS:   lgS,
		q:     x / (1 + x),
	}, nil
}

// LogProb returns log a_k (-Inf for k < 0 or an impossible k).
func (a Arrivals) LogProb(k int) float64 {
	switch {
	case k < 0:
		return math.Inf(-1)
	case a.none:
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	case k == 0:
		return a.logA0
	}
	fk := float64(k)
	lgK1, _ := math.Lgamma(fk + 1)
	if a.det {
		return fk*math.Log(a.m) - a.m - lgK1
	}
	lgKS, _ := math.Lgamma(fk + a.shape)
	return lgKS - lgK1 - a.lgS + fk*a.logQ + a.logA0
}

// Prob returns a_k.
func (a Arrivals) Prob(k int) float64 { return math.Exp(a.LogProb(k)) }

// ratio returns a_{l+1}/a_l.
func (a Arrivals) ratio(l int) float64 {
	if a.det {
		return a.m / float64(l+1)
	}
	return a.q * (float64(l) + a.shape) / float64(l+1)
}

// ratioBound returns a bound on a_{j+1}/a_j for every j >= l: the
// ratio falls with l, except for a Gamma shape below 1, where it rises
// towards q.
func (a Arrivals) ratioBound(l int) float64 {
	if !a.det && a.shape < 1 {
		return a.q
	}
	return a.ratio(l)
}

// LogTails returns log P(N > m) for m = 0..n-1. The tails are summed
// from the top down over positive terms, so a small tail keeps its
// relative precision: the sum beyond n-1 is 1 - sum_{l<n} a_l when that
// is at least 1e-3 (its relative error then stays below about 1e-9), and
// otherwise a direct
// sum of the terms until the rest is below 1e-17 of it, or of at most
// 65,536 terms, closed by a geometric bound on the rest.
func (a Arrivals) LogTails(n int) []float64 {
	if n <= 0 {
		return nil
	}
	logA := make([]float64, n)
	var f float64
	for l := range logA {
		logA[l] = a.LogProb(l)
		f += math.Exp(logA[l])
	}
	tails := make([]float64, n)
	switch {
	case a.none:
		tails[n-1] = math.Inf(-1)
	case f < 1-1e-3:
		tails[n-1] = math.Log1p(-f)
	default:
		tails[n-1] = a.logTailFrom(n)
	}
	for m := n - 2; m >= 0; m-- {
		tails[m] = logAddExp(tails[m+1], logA[m+1])
	}
	return tails
}

// Tails returns P(N > m) for m = 0..n-1.
func (a Arrivals) Tails(n int) []float64 {
	t := a.LogTails(n)
	for i := range t {
		t[i] = math.Exp(t[i])
	}
	return t
}

// logTailFrom returns log sum_{l >= n} a_l, summing forward from a_n.
func (a Arrivals) logTailFrom(n int) float64 {
	lead := a.LogProb(n)
	if math.IsInf(lead, -1) {
		return lead
	}
	sum, t := 0.0, 1.0 // terms relative to exp(lead)
	for l := n; l < n+maxTailTerms; l++ {
		sum += t
		t *= a.ratio(l)
		if t == 0 {
			return lead + math.Log(sum)
		}
		if sum > 1e250 {
			lead += math.Log(sum)
			t /= sum
			sum = 1
		}
		if rb := a.ratioBound(l + 1); rb < 1 && t/(1-rb) <= 1e-17*sum {
			return lead + math.Log(sum+t/(1-rb))
		}
	}
	if rb := a.ratioBound(n + maxTailTerms); rb < 1 {
		sum += t / (1 - rb)
	}
	return lead + math.Log(sum)
}

// logAddExp returns log(exp(x) + exp(y)) without overflow.
func logAddExp(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(y, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}
