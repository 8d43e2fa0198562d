package queueing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gammaSample draws from Gamma(shape, 1) by Marsaglia and Tsang's
// method; a shape below 1 is boosted: G(a) = G(a+1) * U^(1/a).
func gammaSample(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gammaSample(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// simulateMG1K runs an M/G/1/K queue (FIFO, room for k jobs in all) with
// Gamma service and returns the mean response time of admitted jobs over
// jobs admitted jobs after warm ones, and its standard error by batch
// means (50 batches).
func simulateMG1K(rng *rand.Rand, rate float64, g Gamma, k, warm, jobs int) (mean, se float64) {
	const batches = 50
	deps := make([]float64, k) // departure times of the jobs in the system, a ring
	head, n := 0, 0
	var t, last float64
	per := jobs / batches
	sums := make([]float64, batches)
	for admitted := 0; admitted < warm+per*batches; {
		t += rng.ExpFloat64() / rate
		for n > 0 && deps[head] <= t {
			head = (head + 1) % k
			n--
		}
		if n == k {
			continue // refused
		}
		start := t
		if n > 0 {
			start = last
		}
		last = start + g.Scale*gammaSample(rng, g.Shape)
		deps[(head+n)%k] = last
		n++
		if admitted >= warm {
			sums[(admitted-warm)/per] += last - t
		}
		admitted++
	}
	var s, s2 float64
	for _, b := range sums {
		m := b / float64(per)
		s += m
		s2 += m * m
	}
	mean = s / batches
	v := (s2 - batches*mean*mean) / (batches - 1)
	return mean, math.Sqrt(math.Max(v, 0) / batches)
}

// TestResponseTimeAgainstSimulation: E(R_K) against a discrete-event
// simulation of M/G/1/K with Gamma service at 10 operating points, within
// 2 %. Each run is long enough that its standard error (batch means) is
// under 0.5 %, so 2 % is at least 4 standard errors: a model off by 2 %
// fails, and a correct one passes except with negligible probability.
// -short halves the runs and checks only the first five points.
func TestResponseTimeAgainstSimulation(t *testing.T) {
	const seed = 20261126
	points := []struct {
		rho, cv float64 // rho_e = Lambda*E(T), E(T) = 1
		k       int
	}{
		{0.3, 1, 3},
		{0.5, 0.5, 5},
		{0.7, 1.5, 4},
		{0.9, 1, 10},
		{1.2, 0.7, 6},
		{0.8, 2, 8},
		{0.5, 0.2, 2},
		{1.5, 1.2, 5},
		{0.6, 0.3, 20},
		{2, 0.5, 15},
	}
	jobs := 1_000_000
	if testing.Short() {
		jobs, points = 500_000, points[:5]
	}
	t.Logf("seed %d", seed)
	for i, p := range points {
		q := Queue{Rate: p.rho, Service: Service{Mean: 1, CV: p.cv}}
		want, err := q.ResponseTime(p.k)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := FitGamma(1, p.cv)
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		got, se := simulateMG1K(rng, p.rho, g, p.k, 20_000, jobs)
		t.Logf("point %d %+v: simulated %.4f ± %.4f, model %.4f", i, p, got, se, want)
		if se > 0.005*got {
			t.Errorf("point %d %+v: standard error %.3g is %.2f %% of %.4g: run too short for a 2 %% check", i, p, se, 100*se/got, got)
		}
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("point %d %+v (seed %d): simulated E(R) %.4f ± %.4f, model %.4f (%.2f %% off)", i, p, seed, got, se, want, 100*(got-want)/want)
		}
	}
}

// TestGammaSample: the sampler's mean and cv match the law's (a sampler
// bug would make the simulation check meaningless).
func TestGammaSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, shape := range []float64{0.25, 1, 4, 100} {
		const n = 200_000
		var s, s2 float64
		for range n {
			x := gammaSample(rng, shape)
			s += x
			s2 += x * x
		}
		m := s / n
		v := s2/n - m*m
		// mean shape, variance shape; sd of the sample mean sqrt(shape/n)
		if math.Abs(m-shape) > 5*math.Sqrt(shape/n) || math.Abs(v/shape-1) > 0.05 {
			t.Errorf("shape %g: sample mean %g variance %g, want %g and %g", shape, m, v, shape, shape)
		}
	}
}
