package queueing

import (
	"errors"
	"math"
	"testing"

	"github.com/bora-sched/bora/fielderr"
)

func TestFitGamma(t *testing.T) {
	tests := []struct {
		name        string
		mean, cv    float64
		shape, scal float64
	}{
		// shape = 1/cv², scale = mean·cv²
		{"exponential", 2, 1, 1, 2},
		{"cv half", 10, 0.5, 4, 2.5},
		{"cv two", 3, 2, 0.25, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FitGamma(tc.mean, tc.cv)
			if err != nil {
				t.Fatal(err)
			}
			if !close(g.Shape, tc.shape, 1e-15) || !close(g.Scale, tc.scal, 1e-15) {
				t.Fatalf("got %+v, want shape %g scale %g", g, tc.shape, tc.scal)
			}
			// moments back: mean k·theta, variance k·theta²
			if !close(g.Shape*g.Scale, tc.mean, 1e-15) || !close(math.Sqrt(g.Shape)*g.Scale/tc.mean, tc.cv, 1e-15) {
				t.Fatalf("moments of %+v do not give mean %g cv %g", g, tc.mean, tc.cv)
			}
		})
	}
}

func TestFitGammaBadInput(t *testing.T) {
	tests := []struct {
		mean, cv float64
		path     string
	}{
		{-1, 1, "mean"}, {0, 1, "mean"}, {math.NaN(), 1, "mean"}, {math.Inf(1), 1, "mean"},
		{1, 0, "cv"}, {1, -0.5, "cv"}, {1, math.NaN(), "cv"}, {1, 1e-200, "cv"},
	}
	for _, tc := range tests {
		_, err := FitGamma(tc.mean, tc.cv)
		wantField(t, err, tc.path)
	}
}

func wantField(t *testing.T, err error, path string) {
	t.Helper()
	var fe *fielderr.Error
	if !errors.As(err, &fe) || fe.Path != path || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v: want an ErrInvalid fielderr at %q", err, path)
	}
}

func TestArrivalsByHand(t *testing.T) {
	// Gamma shape 2 scale 6.25, rate 0.08: x = 0.5, q = 1/3.
	// a_0 = (2/3)^2 = 4/9; a_1 = 2 * (1/3) * 4/9 = 8/27;
	// a_2 = C(3,2) (1/3)^2 (4/9) = 4/27.
	a, err := NewArrivals(0.08, Service{Mean: 12.5, CV: math.Sqrt(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []float64{4.0 / 9, 8.0 / 27, 4.0 / 27} {
		if got := a.Prob(k); !close(got, want, 1e-13) {
			t.Errorf("a_%d = %.17g, want %.17g", k, got, want)
		}
	}
	// Deterministic service 2, rate 0.5: Poisson(1), a_3 = e^-1/6.
	d, err := NewArrivals(0.5, Service{Mean: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Prob(3), math.Exp(-1)/6; !close(got, want, 1e-14) {
		t.Errorf("Poisson a_3 = %g, want %g", got, want)
	}
	// No arrivals.
	z, _ := NewArrivals(0, Service{Mean: 1, CV: 1})
	if z.Prob(0) != 1 || z.Prob(1) != 0 || z.Tails(3)[0] != 0 {
		t.Errorf("rate 0: a_0 %g a_1 %g P(N>0) %g, want 1 0 0", z.Prob(0), z.Prob(1), z.Tails(3)[0])
	}
}

// TestArrivalsLargeSumToOne: a_k for k up to 10,000 and shapes up to
// 1e4 are finite and sum to 1 within 1e-9 (the law's mass lies well
// inside 0..9,999 for each case: mean shape*x, sd sqrt(shape*x*(1+x))).
func TestArrivalsLargeSumToOne(t *testing.T) {
	tests := []struct{ shape, x float64 }{
		{1e4, 0.5},  // mean 5000, sd 87
		{1e4, 0.01}, // mean 100
		{1000, 4},   // mean 4000, sd 141
		{1, 300},    // geometric, mean 300: tail beyond 10^4 is e^-33
		{0.01, 100}, // mean 1, most mass at 0, long tail q = 100/101
		{3e3, 1},    // mean 3000
	}
	for _, tc := range tests {
		mean := 1.0
		cv := 1 / math.Sqrt(tc.shape)
		scale := mean * cv * cv
		a, err := NewArrivals(tc.x/scale, Service{Mean: mean, CV: cv})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for k := 0; k <= 10000; k++ {
			p := a.Prob(k)
			if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
				t.Fatalf("shape %g x %g: a_%d = %g", tc.shape, tc.x, k, p)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("shape %g x %g: sum a_k = %.12f, want 1 within 1e-9", tc.shape, tc.x, sum)
		}
	}
}

// TestTailsKeepPrecision: for shape 1 the law is geometric, P(N > m) =
// q^(m+1) exactly; the tails keep their relative precision far below
// 1 - (sum of a_k)'s rounding (1e-16).
func TestTailsKeepPrecision(t *testing.T) {
	a, err := NewArrivals(0.5, Service{Mean: 2, CV: 1}) // x = 1, q = 1/2
	if err != nil {
		t.Fatal(err)
	}
	lt := a.LogTails(1000)
	for _, m := range []int{0, 1, 10, 100, 999} {
		want := float64(m+1) * math.Log(0.5)
		if math.Abs(lt[m]-want) > 1e-12*math.Abs(want) {
			t.Errorf("log P(N > %d) = %.15g, want %.15g", m, lt[m], want)
		}
	}
	// Light load, shape 3: tails beyond the median; each must equal the
	// sum of the terms above it.
	b, _ := NewArrivals(0.01, Service{Mean: 1, CV: 1 / math.Sqrt(3)})
	tails := b.Tails(20)
	for m := 0; m < 19; m++ {
		want := tails[m+1] + b.Prob(m+1)
		if !close(tails[m], want, 1e-12) {
			t.Errorf("P(N > %d) = %g, want P(N > %d) + a_%d = %g", m, tails[m], m+1, m+1, want)
		}
	}
	if !close(tails[0], 1-b.Prob(0), 1e-12) {
		t.Errorf("P(N > 0) = %g, want 1 - a_0 = %g", tails[0], 1-b.Prob(0))
	}
}

func close(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-300)
}
