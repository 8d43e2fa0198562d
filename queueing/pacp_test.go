package queueing

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestLoadService(t *testing.T) {
	// lambda 0.1, mu_l 0.5: rho_l 0.2; omega 10, theta 1:
	// E(T) = 10/0.8 = 12.5; V(T) = 0.2/0.512 * 2 * 10 * 10 = 78.125;
	// shape = E²/V = 2, scale = V/E = 6.25, CV = sqrt(V)/E = sqrt(1/2).
	svc, err := fixtureLoads["shape2"].Service()
	if err != nil {
		t.Fatal(err)
	}
	if !close(svc.Mean, 12.5, 1e-15) || !close(svc.CV, math.Sqrt(0.5), 1e-15) {
		t.Fatalf("service %+v, want mean 12.5 cv 0.70711", svc)
	}
	g, _ := FitGamma(svc.Mean, svc.CV)
	if !close(g.Shape, 2, 1e-14) || !close(g.Scale, 6.25, 1e-14) {
		t.Fatalf("fit %+v, want shape 2 scale 6.25", g)
	}
	// No local load: deterministic service of omega.
	svc, err = Load{LocalServiceRate: 1, ExternalMean: 5, ExternalRate: 0.1}.Service()
	if err != nil || svc != (Service{Mean: 5}) {
		t.Fatalf("rho_l = 0: %+v, %v; want mean 5 cv 0", svc, err)
	}
	_, err = Load{LocalRate: 2, LocalServiceRate: 1, ExternalMean: 5}.Service()
	if !errors.Is(err, ErrSaturated) {
		t.Fatalf("rho_l = 2: %v, want ErrSaturated", err)
	}
}

func TestKStar(t *testing.T) {
	exp := fixtureLoads["exp"] // E(R_K) = 2, 18/7, 38/13, 3.1232, 3.2299, ... -> 1/(0.5-0.2) = 3.33
	sh2 := fixtureLoads["shape2"]
	tests := []struct {
		name string
		load Load
		d    float64
		maxK int
		want Limit
	}{
		{"between K=3 and 4", exp, 3, 50, Limit{K: 3}},
		{"exactly E(R_1)", exp, 2, 50, Limit{K: 1}},
		{"just below 18/7", exp, 2.57, 50, Limit{K: 1}},
		{"just above 18/7", exp, 2.572, 50, Limit{K: 2}},
		{"even K=1 too slow", exp, 1.9, 50, Limit{K: 0}},
		{"above the M/M/1 limit: capped", exp, 3.4, 50, Limit{K: 50, Capped: true}},
		{"cap reached first", exp, 3, 2, Limit{K: 2, Capped: true}},
		// D = (0.5*4 + 0.5*2)*10 = 30; E(R_3) = 24.12 <= 30 < E(R_4) = 30.31
		{"shape2 reference threshold", sh2, 30, 50, Limit{K: 3}},
		{"saturated", Load{LocalRate: 1, LocalServiceRate: 1, ExternalMean: 1, ExternalRate: 1}, 100, 50, Limit{Saturated: true}},
		{"no external arrivals", Load{LocalRate: 0.5, LocalServiceRate: 1, ExternalMean: 1}, 2, 50, Limit{K: 50, Capped: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KStar(tc.load, tc.d, tc.maxK)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("K* = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestKStarMonotoneInThreshold: over a grid of loads, K* never falls as
// the threshold grows, and E(R_K*) <= D < E(R_K*+1) (the definition).
func TestKStarMonotoneInThreshold(t *testing.T) {
	for _, rhoL := range []float64{0, 0.2, 0.5, 0.8} {
		for _, theta := range []float64{0, 1, 3} {
			for _, rhoE := range []float64{0.05, 0.5, 1, 2} {
				load := Load{LocalRate: rhoL, LocalServiceRate: 1, LocalCV: theta, ExternalMean: 1}
				svc, _ := load.Service()
				load.ExternalRate = rhoE / svc.Mean
				prev := -1
				for d := 0.5; d <= 60; d *= 1.15 {
					ex, err := Explain(load, d, 200)
					if err != nil {
						t.Fatal(err)
					}
					k := ex.Limit.K
					if k < prev {
						t.Fatalf("%+v: K* = %d at D = %g, but %d at a smaller D", load, k, d, prev)
					}
					prev = k
					rs := ex.ResponseTimes
					if k > 0 && rs[k-1] > d || !ex.Limit.Capped && len(rs) != k+1 || !ex.Limit.Capped && rs[k] <= d {
						t.Fatalf("%+v D %g: K* %d but E(R_K) = %v", load, d, k, rs)
					}
				}
			}
		}
	}
}

func TestExplain(t *testing.T) {
	ex, err := Explain(fixtureLoads["exp"], 3, 50)
	if err != nil {
		t.Fatal(err)
	}
	// E(T) = 2, cv 1 (shape 1, scale 2), rho_e = 0.4; E(R_1..4) by the fixture.
	want := []float64{2, 18.0 / 7, 38.0 / 13, 634.0 / 203}
	if ex.Limit != (Limit{K: 3}) || ex.Threshold != 3 || ex.LocalLoad != 0.5 || !close(ex.ExternalLoad, 0.4, 1e-15) ||
		!close(ex.Shape, 1, 1e-15) || !close(ex.Scale, 2, 1e-15) || len(ex.ResponseTimes) != 4 {
		t.Fatalf("explanation %+v", ex)
	}
	for k := range want {
		if !close(ex.ResponseTimes[k], want[k], 1e-12) {
			t.Errorf("E(R_%d) = %g, want %g", k+1, ex.ResponseTimes[k], want[k])
		}
	}
	if _, err := json.Marshal(ex); err != nil {
		t.Fatal(err)
	}
	sat, err := Explain(Load{LocalRate: 3, LocalServiceRate: 1, ExternalMean: 1}, 3, 50)
	if err != nil || !sat.Limit.Saturated || len(sat.ResponseTimes) != 0 {
		t.Fatalf("saturated explanation %+v, %v", sat, err)
	}
	if _, err := json.Marshal(sat); err != nil {
		t.Fatal(err)
	}
}

func TestRateLimit(t *testing.T) {
	tests := []struct {
		lambda, omega float64
		maxK, want    int
	}{
		{0.1, 10, 100, 1},     // mu_e = 0.1: floor(0.1/0.1) = 1
		{0.01, 10, 100, 10},   // floor(0.1/0.01) = 10
		{0.5, 10, 100, 0},     // floor(0.2) = 0: admit none
		{0.001, 10, 50, 50},   // floor(100) capped at 50
		{0, 10, 64, 64},       // no local load: the cap
		{0.03, 10, 100, 3},    // floor(3.33) = 3
		{1e-300, 1e-10, 7, 7}, // huge quotient: the cap, no overflow
	}
	for _, tc := range tests {
		got, err := RateLimit(tc.lambda, tc.omega, tc.maxK)
		if err != nil || got != tc.want {
			t.Errorf("RateLimit(%g, %g, %d) = %d, %v; want %d", tc.lambda, tc.omega, tc.maxK, got, err, tc.want)
		}
	}
	_, err := RateLimit(-1, 1, 5)
	wantField(t, err, "local_rate")
	_, err = RateLimit(1, 0, 5)
	wantField(t, err, "external_mean")
	_, err = RateLimit(1, 1, 0)
	wantField(t, err, "max_k")
}

func TestThreshold(t *testing.T) {
	// (0.5*4 + 0.5*2) * 10 = 30; all low urgency: 4*10 = 40; none: 2*10 = 20.
	for _, tc := range []struct{ rate, want float64 }{{0.5, 30}, {1, 40}, {0, 20}, {0.25, 25}} {
		if d, err := Threshold(tc.rate, 4, 2, 10); err != nil || d != tc.want {
			t.Errorf("Threshold(%g, 4, 2, 10) = %g, %v; want %g", tc.rate, d, err, tc.want)
		}
	}
	for _, tc := range []struct {
		r, ul, uh, om float64
		path          string
	}{
		{-0.1, 4, 2, 10, "rate_low"}, {1.5, 4, 2, 10, "rate_low"}, {math.NaN(), 4, 2, 10, "rate_low"},
		{0.5, 0, 2, 10, "u_low"}, {0.5, 4, -2, 10, "u_high"}, {0.5, 4, 2, math.Inf(1), "external_mean"},
	} {
		_, err := Threshold(tc.r, tc.ul, tc.uh, tc.om)
		wantField(t, err, tc.path)
	}
}

func TestKStarBadInput(t *testing.T) {
	good := fixtureLoads["exp"]
	bad := func(f func(*Load)) Load { l := good; f(&l); return l }
	tests := []struct {
		load Load
		d    float64
		maxK int
		path string
	}{
		{bad(func(l *Load) { l.LocalRate = -1 }), 3, 10, "local_rate"},
		{bad(func(l *Load) { l.LocalServiceRate = 0 }), 3, 10, "local_service_rate"},
		{bad(func(l *Load) { l.LocalCV = math.NaN() }), 3, 10, "local_cv"},
		{bad(func(l *Load) { l.ExternalMean = -5 }), 3, 10, "external_mean"},
		{bad(func(l *Load) { l.ExternalRate = math.Inf(1) }), 3, 10, "external_rate"},
		{good, 0, 10, "threshold"},
		{good, math.NaN(), 10, "threshold"},
		{good, 3, -1, "max_k"},
	}
	for _, tc := range tests {
		_, err := KStar(tc.load, tc.d, tc.maxK)
		wantField(t, err, tc.path)
		_, err = Explain(tc.load, tc.d, tc.maxK)
		wantField(t, err, tc.path)
	}
}

// TestRandomInputsNeverPanic: random finite (and some non-finite) inputs
// over many orders of magnitude give either an error naming an input or a
// limit with finite, non-negative E(R_K); never a panic or a NaN.
func TestRandomInputsNeverPanic(t *testing.T) {
	const seed = 15
	rng := rand.New(rand.NewPCG(seed, 4))
	special := []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-320, 1e300, math.MaxFloat64}
	pick := func() float64 {
		if rng.IntN(8) == 0 {
			return special[rng.IntN(len(special))]
		}
		return math.Pow(10, rng.Float64()*40-20)
	}
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		load := Load{LocalRate: pick(), LocalServiceRate: pick(), LocalCV: pick(), ExternalMean: pick(), ExternalRate: pick()}
		d, maxK := pick(), 1+rng.IntN(64)
		ex, err := Explain(load, d, maxK)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("case %d (seed %d) %+v d %g: error %v is not ErrInvalid", i, seed, load, d, err)
			}
			continue
		}
		for k, r := range ex.ResponseTimes {
			if math.IsNaN(r) || r < 0 {
				t.Fatalf("case %d (seed %d) %+v d %g: E(R_%d) = %g", i, seed, load, d, k+1, r)
			}
		}
	}
}

func FuzzKStar(f *testing.F) {
	f.Add(0.5, 1.0, 0.0, 1.0, 0.2, 3.0, 50)
	f.Add(0.1, 0.5, 1.0, 10.0, 0.08, 30.0, 50)
	f.Add(1e-300, 1e300, 1e10, 1e-10, 1e20, 1e-5, 3)
	f.Fuzz(func(t *testing.T, lam, muL, theta, omega, ext, d float64, maxK int) {
		ex, err := Explain(Load{lam, muL, theta, omega, ext}, d, maxK%200)
		if err == nil {
			for _, r := range ex.ResponseTimes {
				if math.IsNaN(r) {
					t.Fatalf("NaN E(R) in %+v", ex)
				}
			}
		}
	})
}
