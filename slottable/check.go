package slottable

import (
	"fmt"
	"time"
)

// Check verifies the table. It returns ErrOverCapacity (wrapped with the
// host name, the time and the resource) if some host's usage exceeds its
// capacity at some time, whether or not checking is on, and ErrCorrupt if
// the internal structures are inconsistent: tree ordering, heap order or
// aggregates, profiles that disagree with the reservations, the lease
// index, or the global multiset of change points. Cost: O(n log n).
func (t *Table) Check() error {
	if err := t.checkReservations(); err != nil {
		return err
	}
	if err := t.checkProfiles(); err != nil {
		return err
	}
	if err := t.checkMset(); err != nil {
		return err
	}
	for h := range t.hosts {
		if err := t.checkCapacity(HostID(h)); err != nil {
			return err
		}
	}
	return nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// checkCapacity walks host h's profile and reports the first overload.
func (t *Table) checkCapacity(h HostID) error {
	var w walker
	w.init(t, h, negInf, posInf, nil)
	capy := t.hosts[h].Capacity
	for {
		for j, u := range w.usage {
			if u > capy[j] {
				return fmt.Errorf("%w: host %q at %v: %s %d > capacity %d", ErrOverCapacity,
					t.hosts[h].Name, fromNS(w.at, time.UTC), t.names[j], u, capy[j])
			}
		}
		if !w.next() {
			return nil
		}
	}
}

// checkReservations checks the slots, the ID index, the lease index and
// the interval treaps against each other.
func (t *Table) checkReservations() error {
	live := 0
	for s, r := range t.rs {
		if r.ID == 0 {
			continue
		}
		live++
		nd := t.it.nodes[s]
		if got, _ := t.byID.get(r.ID); got != int32(s) || nd.id != r.ID || nd.start != toNS(r.Start) || nd.end != toNS(r.End) {
			return corrupt("slot %d (reservation %d) disagrees with its indexes", s, r.ID)
		}
		if !t.validHost(r.Host) || t.checkRes(r.Res) != nil || nd.start >= nd.end {
			return corrupt("reservation %d is invalid", r.ID)
		}
	}
	if live != t.byID.len() || live+len(t.free) != len(t.rs) {
		return corrupt("%d live slots, %d IDs, %d free of %d", live, t.byID.len(), len(t.free), len(t.rs))
	}
	inLease := 0
	for l, ids := range t.lease {
		for _, id := range ids {
			s, ok := t.byID.get(id)
			if !ok || t.rs[s].Lease != l {
				return corrupt("lease %d lists reservation %d wrongly", l, id)
			}
		}
		inLease += len(ids)
	}
	if inLease != live {
		return corrupt("lease index holds %d reservations, want %d", inLease, live)
	}
	inTrees := 0
	for h, root := range t.itRoot {
		prev := nilNode
		n, err := t.checkITree(HostID(h), root, nilNode, &prev)
		if err != nil {
			return err
		}
		if prev >= 0 && t.it.nodes[prev].sameNext {
			return corrupt("interval tree: slot %d, last of host %d, says a node after it starts with it", prev, h)
		}
		inTrees += n
	}
	if inTrees != live {
		return corrupt("interval trees hold %d reservations, want %d", inTrees, live)
	}
	return nil
}

// checkITree checks the interval treap at n (in host h, under parent p):
// heap order and aggregates here, in-order key order through prev (the
// last slot visited). It returns the subtree's size.
func (t *Table) checkITree(h HostID, n, p int32, prev *int32) (int, error) {
	if n < 0 {
		return 0, nil
	}
	nd := t.it.nodes[n]
	if t.rs[n].ID == 0 || t.rs[n].Host != h {
		return 0, corrupt("host %d's interval tree holds slot %d", h, n)
	}
	if p >= 0 && nd.prio > t.it.nodes[p].prio {
		return 0, corrupt("interval tree heap order at slot %d", n)
	}
	m := nd.end
	for _, c := range []int32{nd.l, nd.r} {
		if c >= 0 {
			m = max(m, t.it.nodes[c].maxEnd)
		}
	}
	if m != nd.maxEnd {
		return 0, corrupt("interval tree maxEnd at slot %d", n)
	}
	a, err := t.checkITree(h, nd.l, n, prev)
	if err != nil {
		return 0, err
	}
	if *prev >= 0 && !t.it.before(*prev, nd.start, nd.id) {
		return 0, corrupt("interval tree order at slot %d", n)
	}
	if *prev >= 0 && t.it.nodes[*prev].sameNext != (t.it.nodes[*prev].start == nd.start) {
		return 0, corrupt("interval tree: slot %d's sameNext is %v before slot %d", *prev, t.it.nodes[*prev].sameNext, n)
	}
	*prev = n
	b, err := t.checkITree(h, nd.r, n, prev)
	return a + b + 1, err
}

// checkProfiles checks every host's change-point treap: key and heap
// order, aggregates, no all-zero deltas, deltas equal to what the
// reservations imply, and the pool's node accounting.
func (t *Table) checkProfiles() error {
	for h := range t.hosts {
		want := t.expectedDeltas(HostID(h))
		prev := int64(negInf)
		first := true
		cp := &t.cp[h]
		n, err := t.checkCP(HostID(h), t.cpRoot[h], nilNode, func(n int32) error {
			k := cp.nodes[n].key
			if !first && k <= prev {
				return corrupt("host %d: change points out of order at %d", h, k)
			}
			first, prev = false, k
			d, ok := want[k]
			if !ok || !equal(d, cp.delta(n)) {
				return corrupt("host %d: delta at %d is %v, want %v", h, k, cp.delta(n), d)
			}
			delete(want, k)
			return nil
		})
		if err != nil {
			return err
		}
		for k, d := range want {
			if !allZero(d) {
				return corrupt("host %d: missing change point %d", h, k)
			}
		}
		if n+len(cp.free) != len(cp.nodes) {
			return corrupt("host %d: %d change points reached, %d free, %d nodes", h, n, len(cp.free), len(cp.nodes))
		}
		d := cp.dims
		for j := range d {
			want := max(0, cp.whole(t.cpRoot[h], j).m)
			if t.peak[h*d+j] != want || t.capv[h*d+j] != t.hosts[h].Capacity[j] {
				return corrupt("host %d: flat peak %d and capacity %d in dimension %d, want %d and %d",
					h, t.peak[h*d+j], t.capv[h*d+j], j, want, t.hosts[h].Capacity[j])
			}
		}
	}
	return nil
}

// expectedDeltas recomputes host h's deltas from its reservations.
func (t *Table) expectedDeltas(h HostID) map[int64][]int64 {
	want := make(map[int64][]int64)
	for s, r := range t.rs {
		if r.ID == 0 || r.Host != h {
			continue
		}
		nd := t.it.nodes[s]
		for _, kd := range []struct {
			k    int64
			sign int64
		}{{nd.start, 1}, {nd.end, -1}} {
			d := want[kd.k]
			if d == nil {
				d = make([]int64, t.Dims())
				want[kd.k] = d
			}
			for j, v := range r.Res {
				d[j] += kd.sign * v
			}
		}
	}
	return want
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkCP checks heap order and aggregates of the change-point treap at n
// (under parent p), calling visit in order; it returns the size.
func (t *Table) checkCP(h HostID, n, p int32, visit func(int32) error) (int, error) {
	if n < 0 {
		return 0, nil
	}
	cp := &t.cp[h]
	nd := cp.nodes[n]
	if p >= 0 && nd.prio > cp.nodes[p].prio {
		return 0, corrupt("change-point heap order at node %d", n)
	}
	a, err := t.checkCP(h, nd.l, n, visit)
	if err != nil {
		return 0, err
	}
	if err := visit(n); err != nil {
		return 0, err
	}
	b, err := t.checkCP(h, nd.r, n, visit)
	if err != nil {
		return 0, err
	}
	for j := range t.Dims() {
		w := cp.single(n, j)
		if nd.l >= 0 {
			w = cp.whole(nd.l, j).then(w)
		}
		if nd.r >= 0 {
			w = w.then(cp.whole(nd.r, j))
		}
		if w != cp.whole(n, j) {
			return 0, corrupt("change-point aggregate at node %d", n)
		}
	}
	return a + b + 1, nil
}

// checkMset checks the global multiset against the hosts' change points.
func (t *Table) checkMset() error {
	want := make(map[int64]int32)
	for h := range t.hosts {
		_, _ = t.checkCP(HostID(h), t.cpRoot[h], nilNode, func(n int32) error {
			want[t.cp[h].nodes[n].key]++
			return nil
		})
	}
	prev, first, reached := int64(negInf), true, 0
	var err error
	t.ms.each(func(key int64, cnt int32) {
		if err == nil && ((!first && key <= prev) || cnt != want[key]) {
			err = corrupt("change-point multiset at %d: count %d, want %d", key, cnt, want[key])
		}
		first, prev = false, key
		reached++
	})
	if err != nil {
		return err
	}
	if reached != len(want) {
		return corrupt("change-point multiset holds %d times, want %d", reached, len(want))
	}
	return t.ms.checkBlocks()
}
