package dispatch

import (
	"fmt"
	"slices"

	"github.com/bora-sched/bora/fielderr"
)

// RTDP is the source's deterministic dispatch (docs/models.md §6): a
// billiard sequence per request type i. With P_j^i = P_j * share(i),
// X_j = 1 for the fastest cluster and 0 for the others, and Y_j^i the
// requests of type i sent to j so far, the next request of type i goes
// to argmin_j (X_j + Y_j^i) / P_j^i over P_j^i > 0, and Y_j^i grows by
// 1. Values within a relative 1e-9 of each other tie (so that 3/0.3 and
// 2/0.2 are one value), and ties go to the lowest index.
type RTDP struct {
	p     []float64 // P_j
	types []float64 // share(i)
	x     []float64 // X_j
	y     [][]int   // Y_j^i, by type then cluster
}

// NewRTDP returns an RTDP over cluster shares p and request-type shares
// types (each finite, >= 0, summing to 1), fastest being the index of the
// fastest cluster (X_j = 1 there). It returns an error wrapping ErrInput
// for bad shares or an index out of range.
func NewRTDP(p []float64, fastest int, types []float64) (*RTDP, error) {
	if err := checkShares("shares", p); err != nil {
		return nil, err
	}
	if err := checkShares("type_shares", types); err != nil {
		return nil, err
	}
	if fastest < 0 || fastest >= len(p) {
		return nil, fielderr.Wrap(ErrInput, "fastest", "cluster %d out of 0..%d", fastest, len(p)-1)
	}
	d := &RTDP{p: slices.Clone(p), types: slices.Clone(types), x: make([]float64, len(p)), y: make([][]int, len(types))}
	d.x[fastest] = 1
	for i := range d.y {
		d.y[i] = make([]int, len(p))
	}
	return d, nil
}

// Next returns the cluster for the next request of type typ and counts
// it. It returns an error wrapping ErrInput for a type out of range or
// of share 0.
func (d *RTDP) Next(typ int) (int, error) {
	if typ < 0 || typ >= len(d.types) || d.types[typ] == 0 {
		return 0, fielderr.Wrap(ErrInput, "type", "request type %d is not one of the %d types with a positive share", typ, len(d.types))
	}
	best, bv := -1, 0.0
	for j, pj := range d.p {
		pji := pj * d.types[typ]
		if pji <= 0 {
			continue
		}
		v := (d.x[j] + float64(d.y[typ][j])) / pji
		if best < 0 || v < bv*(1-1e-9) {
			best, bv = j, v
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("no cluster has a positive share: %w", ErrInput)
	}
	d.y[typ][best]++
	return best, nil
}

// fastest is the index of the cluster with the highest Power/Hosts (the
// mean host speed), the lowest index among equals.
func fastest(cs []Cluster) int {
	best := 0
	for j, c := range cs {
		b := cs[best]
		if c.Power/float64(c.Hosts) > b.Power/float64(b.Hosts) {
			best = j
		}
	}
	return best
}
