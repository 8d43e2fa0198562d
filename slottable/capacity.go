package slottable

import (
	"fmt"
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
	t.hosts[h].Capacity = slices.Clone(capacity)
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
	return nil
}
