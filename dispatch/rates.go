package dispatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/bora-sched/bora/fielderr"
)

// The baselines' splits (docs/models.md §6), as shares P_j summing to 1.

// LeastRateFirst is the least-rate-first split: Lambda_j proportional to
// (1 - lambda_j / sum lambda), normalised. When the weights are all 0
// (no local load anywhere, or a single cluster) the shares are equal.
func LeastRateFirst(cs []Cluster) ([]float64, error) {
	if err := validateAll(cs); err != nil {
		return nil, err
	}
	total := 0.0
	for _, c := range cs {
		total += c.Lambda
	}
	w := make([]float64, len(cs))
	for j, c := range cs {
		w[j] = 1
		if total > 0 {
			w[j] = 1 - c.Lambda/total
		}
	}
	return normalise(w), nil
}

// BiggestClusterFirst is the biggest-cluster-first split: shares in
// proportion to computing power (Power).
func BiggestClusterFirst(cs []Cluster) ([]float64, error) {
	if err := validateAll(cs); err != nil {
		return nil, err
	}
	w := make([]float64, len(cs))
	for j, c := range cs {
		w[j] = c.Power
	}
	return normalise(w), nil
}

// normalise is w scaled to sum 1; equal shares when w sums to 0.
func normalise(w []float64) []float64 {
	s := 0.0
	for _, v := range w {
		s += v
	}
	out := make([]float64, len(w))
	for j, v := range w {
		if s > 0 {
			out[j] = v / s
		} else {
			out[j] = 1 / float64(len(w))
		}
	}
	return out
}

// checkShares checks that shares are finite, >= 0 and sum to 1 (within
// 1e-9); path names the field in the error (wrapping ErrInput).
func checkShares(path string, p []float64) error {
	if len(p) == 0 {
		return fielderr.Wrap(ErrInput, path, "no shares")
	}
	s := 0.0
	for j, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fielderr.Wrap(ErrInput, fmt.Sprintf("%s[%d]", path, j), "share %v is not a finite non-negative number", v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		return fielderr.Wrap(ErrInput, path, "shares sum to %v, want 1", s)
	}
	return nil
}

// Random dispatches at random with shares P_j (PAP-RND when P_j are
// PAP's shares). Its randomness comes only from the *rand.Rand given.
type Random struct {
	p []float64
	r *rand.Rand
}

// NewRandom returns a Random over shares p (finite, >= 0, summing to 1)
// drawing from r. It returns an error wrapping ErrInput for bad shares
// or a nil r.
func NewRandom(p []float64, r *rand.Rand) (*Random, error) {
	if err := checkShares("shares", p); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fielderr.Wrap(ErrInput, "rand", "random dispatch needs a seeded *rand.Rand")
	}
	return &Random{p: slices.Clone(p), r: r}, nil
}

// Next draws the next cluster: j with probability P_j (one Float64 of
// the source, walked over the cumulative shares; never a zero share).
func (d *Random) Next() int {
	u := d.r.Float64()
	last := 0
	for j, v := range d.p {
		if v == 0 {
			continue
		}
		last = j
		if u < v {
			return j
		}
		u -= v
	}
	return last
}

// Cyclic dispatches round robin: the i-th request (from 0) to cluster
// i mod n, the rule of RoundRobin.
type Cyclic struct{ n, i int }

// NewCyclic returns a Cyclic over n clusters; ErrClusters when n < 1.
func NewCyclic(n int) (*Cyclic, error) {
	if n < 1 {
		return nil, fmt.Errorf("round robin over %d clusters: %w", n, ErrClusters)
	}
	return &Cyclic{n: n}, nil
}

// Next is the next cluster.
func (d *Cyclic) Next() int {
	j := roundRobin(d.i, d.n)
	d.i++
	return j
}
