package experiment

import (
	"encoding/json"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestTCritical: the 97.5 % quantiles of Student's t from the tables.
func TestTCritical(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {9, 2.2622}, {29, 2.0452}, {1000, 1.9623}} {
		if got := TCritical(c.df); !near(got, c.want, 5e-4) {
			t.Errorf("t(0.975, %d) = %.4f, want %.4f", c.df, got, c.want)
		}
	}
}

// TestSummarize: {1, 2, 3, 4} has mean 2.5 and sample SD sqrt(5/3) =
// 1.29099; the half-width is t(3)·SD/2 = 3.18245·1.29099/2 = 2.05426.
func TestSummarize(t *testing.T) {
	s := Summarize([]float64{1, 2, 3, 4})
	if s.N != 4 || s.Mean != 2.5 || !near(s.SD, 1.290994, 1e-6) || !near(s.CI, 2.054260, 1e-5) {
		t.Fatalf("summary %+v", s)
	}
	if !near(s.Lo(), 0.445740, 1e-5) || !near(s.Hi(), 4.554260, 1e-5) {
		t.Errorf("interval [%v, %v]", s.Lo(), s.Hi())
	}
	if one := Summarize([]float64{7}); one.Mean != 7 || one.CI != 0 || one.Significant() {
		t.Errorf("one sample: %+v", one)
	}
}

// TestPaired: a = {3, 5, 4}, b = {1, 2, 2}: differences {2, 3, 2}, mean
// 7/3, SD sqrt(1/3), half-width t(2)·SD/√3 = 4.30265/3 = 1.43422; the
// interval [0.899, 3.768] excludes 0.
func TestPaired(t *testing.T) {
	d := Paired([]float64{3, 5, 4}, []float64{1, 2, 2})
	if !near(d.Mean, 7.0/3, 1e-12) || !near(d.SD, math.Sqrt(1.0/3), 1e-12) || !near(d.CI, 1.434218, 1e-5) {
		t.Fatalf("paired %+v", d)
	}
	if !d.Significant() {
		t.Error("an interval of [0.9, 3.8] is significant")
	}
	if Paired([]float64{1, 3}, []float64{2, 2}).Significant() {
		t.Error("differences {-1, 1} are not significant")
	}
}

// TestSummaryJSON: a mean that is not a number is written as null, not
// refused by the JSON encoder.
func TestSummaryJSON(t *testing.T) {
	data, err := json.Marshal(Summarize([]float64{math.NaN(), 1}))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"n":2,"mean":null,"sd":null,"ci95":null}` {
		t.Errorf("got %s", data)
	}
}
