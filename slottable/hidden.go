package slottable

import (
	"fmt"
)

// Hidden reservations. A reservation may be hidden: it stays in the
// table, holds its capacity and answers every query as before, but for
// the searches that ask to leave the hidden ones out (Query.SkipHidden):
// those see the table as an Ignore reporting them would, without asking
// about every reservation they walk, since each host keeps the list of
// its hidden ones. The scheduler hides the plans it has not yet decided
// to keep.

// hiddenSet is the table's hidden reservations.
type hiddenSet struct {
	on  [][]int32 // per host: the slots of its hidden reservations
	idx []int32   // per slot: 1 + its index in its host's list, 0 when not hidden
}

// SetHidden hides reservation id (hide) or shows it again. It returns
// ErrUnknownReservation for an unknown id. Cost: O(1).
func (t *Table) SetHidden(id ResID, hide bool) error {
	slot, ok := t.byID.get(id)
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownReservation, id)
	}
	if hide {
		t.hideSlot(slot)
	} else {
		t.showSlot(slot)
	}
	return nil
}

// Hidden reports whether reservation id is in the table and hidden.
func (t *Table) Hidden(id ResID) bool {
	slot, ok := t.byID.get(id)
	return ok && t.hiddenSlot(slot)
}

func (t *Table) hiddenSlot(slot int32) bool {
	return int(slot) < len(t.hid.idx) && t.hid.idx[slot] != 0
}

func (t *Table) hideSlot(slot int32) {
	if t.hiddenSlot(slot) {
		return
	}
	if n := int(slot) + 1; n > len(t.hid.idx) {
		t.hid.idx = append(t.hid.idx, make([]int32, max(n, len(t.rs))-len(t.hid.idx))...)
	}
	if len(t.hid.on) < len(t.hosts) {
		t.hid.on = append(t.hid.on, make([][]int32, len(t.hosts)-len(t.hid.on))...)
	}
	h := t.rs[slot].Host
	t.hid.on[h] = append(t.hid.on[h], slot)
	t.hid.idx[slot] = int32(len(t.hid.on[h]))
}

func (t *Table) showSlot(slot int32) {
	if !t.hiddenSlot(slot) {
		return
	}
	h := t.rs[slot].Host
	list := t.hid.on[h]
	i := t.hid.idx[slot] - 1
	last := list[len(list)-1]
	list[i] = last
	t.hid.idx[last] = i + 1
	t.hid.on[h] = list[:len(list)-1]
	t.hid.idx[slot] = 0
}

// hiddenOn lists host h's hidden reservations' slots, in no order.
func (t *Table) hiddenOn(h HostID) []int32 {
	if int(h) >= len(t.hid.on) {
		return nil
	}
	return t.hid.on[h]
}

// cloneInto is a deep copy of the hidden set, in the memory of dst (a copy
// not used again; the zero value: new memory).
func (s hiddenSet) cloneInto(dst hiddenSet) hiddenSet {
	c := hiddenSet{idx: reuse(dst.idx, s.idx), on: resize(dst.on, len(s.on))}
	for h, l := range s.on {
		c.on[h] = reuse(c.on[h], l)
	}
	return c
}

// initQuery is init leaving out, besides the reservations ignore (when
// not nil) reports, host h's hidden ones when hidden is set.
func (w *walker) initQuery(t *Table, h HostID, from, to int64, ignore func(Reservation) bool, hidden bool) {
	var hid []int32
	if hidden {
		hid = t.hiddenOn(h)
	}
	if len(hid) == 0 {
		w.init(t, h, from, to, ignore)
		return
	}
	w.init(t, h, from, to, nil)
	if ignore != nil {
		t.it.visit(h, from, to, func(s int32) bool {
			if !t.hiddenSlot(s) && ignore(t.rs[s]) {
				w.leaveOut(s, from, to)
			}
			return true
		})
	}
	for _, s := range hid {
		if nd := &t.it.nodes[s]; nd.end > from && nd.start < to {
			w.leaveOut(s, from, to)
		}
	}
	sortEvents(w.ev)
}

// usedQuery is usedIgnoring leaving out host h's hidden reservations too
// when hidden is set.
func (t *Table) usedQuery(h HostID, f, e int64, ignore func(Reservation) bool, hidden bool, out []int64) {
	hidden = hidden && len(t.hiddenOn(h)) > 0
	if ignore == nil && !hidden {
		t.cp[h].maxUsage(f, e, out)
		return
	}
	w := getWalker()
	defer putWalker(w)
	w.initQuery(t, h, f, e, ignore, hidden)
	copy(out, w.usage)
	for w.next() {
		for j, u := range w.usage {
			out[j] = max(out[j], u)
		}
	}
}
