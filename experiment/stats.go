package experiment

import (
	"encoding/json"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Summary is a sample's mean with its 95 % confidence interval, Student's
// t with N-1 degrees of freedom: Mean ± CI, CI = t(0.975, N-1)·SD/√N, SD
// the sample standard deviation (divided by N-1).
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	CI   float64 `json:"ci95"` // half-width
}

// Summarize returns the summary of xs (CI 0 with fewer than two values).
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(s.N)
	if s.N < 2 {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.CI = TCritical(s.N-1) * s.SD / math.Sqrt(float64(s.N))
	return s
}

// Lo and Hi are the ends of the confidence interval.
func (s Summary) Lo() float64 { return s.Mean - s.CI }

// Hi is the upper end of the confidence interval.
func (s Summary) Hi() float64 { return s.Mean + s.CI }

// Significant reports whether the interval excludes zero: for a paired
// difference, whether the two policies differ at the 5 % level.
func (s Summary) Significant() bool { return s.N >= 2 && (s.Lo() > 0 || s.Hi() < 0) }

// TCritical is the 97.5 % quantile of Student's t with df degrees of
// freedom (12.706 for 1, 2.262 for 9, 1.960 in the limit).
func TCritical(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// Paired summarises the differences a[i] - b[i] of two samples paired by
// index (the same seed's workload under two policies): the source's
// paired comparison.
func Paired(a, b []float64) Summary {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return Summarize(d)
}

// MarshalJSON writes a value that is not a number (a metric undefined in
// some run, such as the mean response time of a run where no
// best-effort lease completed) as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N    int `json:"n"`
		Mean any `json:"mean"`
		SD   any `json:"sd"`
		CI   any `json:"ci95"`
	}{s.N, jsonNumber(s.Mean), jsonNumber(s.SD), jsonNumber(s.CI)})
}

// jsonNumber is x, or nil (null) when JSON cannot hold it.
func jsonNumber(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
