package slottable

import (
	"fmt"
	"math"
	"slices"
)

// SetCapacity changes host h's capacity (a host measured again: monitored
// for the first time, or resized). The reservations stay as they are:
// where they now take more than the capacity, the host is over capacity
// (Available is negative there, Check reports it) until the caller moves
// them. More room in any dimension is logged as freed everywhere, so that
// FitMemo looks again. It returns ErrUnknownHost or ErrBadResources; on
// error the table is unchanged.
func (t *Table) SetCapacity(h HostID, capacity Resources) error {
	if !t.validHost(h) {
		return fmt.Errorf("%w: %d", ErrUnknownHost, h)
	}
	if err := t.checkRes(capacity); err != nil {
		return err
	}
	old := t.hosts[h].Capacity
	if t.cl != nil && !t.Closed(h) {
		for k := range capacity {
			t.cl.capy[k] += capacity[k] - old[k]
		}
	}
	t.hosts[h].Capacity = slices.Clone(capacity)
	copy(t.capv[int(h)*len(capacity):], capacity)
	t.touch(h) // counts against the old capacity no longer hold (countprof.go)
	for j := range capacity {
		if capacity[j] > old[j] {
			t.logFreed(0, h, negInf, posInf, nil, false, absence{}, 0, 0) // more room everywhere
			break
		}
	}
	for j := range capacity {
		if capacity[j] < old[j] {
			t.logRaised(0, h, negInf, posInf, true, 0) // less room everywhere
			break
		}
	}
	if t.cl != nil {
		t.cl.noteHost(t, h)
	}
	return nil
}

// MostPerHost is how many copies of per the largest host holds at its
// full capacity: the most a placement can put on one host. Dimensions
// per does not use (zero) do not limit it; with none used it is max int.
// Cost: O(hosts x dims).
func (t *Table) MostPerHost(per Resources) int {
	most := 0
	for _, h := range t.hosts {
		n := math.MaxInt
		for d, need := range per {
			if need > 0 && d < len(h.Capacity) {
				n = min(n, int(h.Capacity[d]/need))
			}
		}
		most = max(most, n)
	}
	return most
}
