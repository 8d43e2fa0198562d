package slottable

import (
	"fmt"
	"math"
	"time"
)

// Check verifies the table. It returns ErrOverCapacity (wrapped with the
// host name, the time and the resource) if some host's usage exceeds its
// capacity at some time, whether or not checking is on, and ErrCorrupt if
// the internal structures are inconsistent: tree ordering, node layout or
// aggregates, profiles that disagree with the reservations, the lease
// index, the global multiset of change points, or the open hosts' usage
// added up (cluster.go). Cost: O(n log n).
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
	if err := t.checkCluster(); err != nil {
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
// the interval trees against each other.
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
	var wrong error
	t.lease.Range(func(l uint64, slots []int32) {
		for _, s := range slots {
			if wrong == nil && (s < 0 || int(s) >= len(t.rs) || t.rs[s].ID == 0 || t.rs[s].Lease != l) {
				wrong = corrupt("lease %d lists slot %d wrongly", l, s)
			}
		}
		inLease += len(slots)
	})
	if wrong != nil {
		return wrong
	}
	if inLease != live {
		return corrupt("lease index holds %d reservations, want %d", inLease, live)
	}
	inTrees := 0
	for h := range t.it.hosts {
		n, err := t.checkITree(HostID(h))
		if err != nil {
			return err
		}
		inTrees += n
	}
	if inTrees != live {
		return corrupt("interval trees hold %d reservations, want %d", inTrees, live)
	}
	return nil
}

// checkITree checks host h's interval tree: its reservations in (start,
// ID) order, each the host's, with its start and end as the slot has
// them, and sameNext right; no empty node, every leaf at one depth and
// linked to its neighbours in order; each child's first reservation and
// latest end as its parent keeps them; the nodes' accounting. It returns
// the number of reservations.
func (t *Table) checkITree(h HostID) (int, error) {
	tr := &t.it.hosts[h]
	c := ivCheck{t: t, tr: tr, h: h, depth: -1, last: nilNode, prev: nilNode}
	if tr.root >= 0 {
		if _, err := c.node(tr.root, 0); err != nil {
			return 0, err
		}
		if tr.nodes[c.last].next != nilNode {
			return 0, corrupt("host %d: last interval-tree leaf links on to %d", h, tr.nodes[c.last].next)
		}
	}
	if c.prev >= 0 && t.it.nodes[c.prev].sameNext {
		return 0, corrupt("interval tree: slot %d, last of host %d, says a reservation after it starts with it", c.prev, h)
	}
	if c.nodes+len(tr.free) != len(tr.nodes) {
		return 0, corrupt("host %d: %d interval-tree nodes reached, %d free, %d in all", h, c.nodes, len(tr.free), len(tr.nodes))
	}
	return c.slots, nil
}

// ivCheck is the state of checkITree's walk.
type ivCheck struct {
	t            *Table
	tr           *ivTree
	h            HostID
	depth        int   // the leaves' depth, -1 before the first
	last         int32 // the last leaf reached
	prev         int32 // the last slot reached
	slots, nodes int
}

// node checks subtree n at depth dep and returns its latest end.
func (c *ivCheck) node(n int32, dep int) (int64, error) {
	t, tr := c.t, c.tr
	nd := &tr.nodes[n]
	c.nodes++
	if nd.cnt < 1 || nd.cnt > ivFan {
		return 0, corrupt("host %d: interval-tree node %d holds %d entries", c.h, n, nd.cnt)
	}
	latest := int64(math.MinInt64)
	if nd.leaf {
		if c.depth >= 0 && dep != c.depth {
			return 0, corrupt("host %d: interval-tree leaves at depths %d and %d", c.h, c.depth, dep)
		}
		c.depth = dep
		if nd.prev != c.last || (c.last >= 0 && tr.nodes[c.last].next != n) {
			return 0, corrupt("host %d: interval-tree leaf %d not linked after leaf %d", c.h, n, c.last)
		}
		c.last = n
		for e := range nd.cnt {
			s := nd.e[e].slot
			if s < 0 || int(s) >= len(t.rs) || t.rs[s].ID == 0 || t.rs[s].Host != c.h {
				return 0, corrupt("host %d's interval tree holds slot %d", c.h, s)
			}
			in := t.it.nodes[s]
			if nd.e[e].start != in.start || nd.e[e].end != in.end {
				return 0, corrupt("interval tree holds slot %d as [%d, %d), want [%d, %d)", s, nd.e[e].start, nd.e[e].end, in.start, in.end)
			}
			if c.prev >= 0 {
				p := t.it.nodes[c.prev]
				if !t.it.before(p.start, c.prev, in.start, s) {
					return 0, corrupt("interval tree order at slot %d", s)
				}
				if p.sameNext != (p.start == in.start) {
					return 0, corrupt("interval tree: slot %d's sameNext is %v before slot %d", c.prev, p.sameNext, s)
				}
			}
			c.prev = s
			c.slots++
			latest = max(latest, in.end)
		}
		return latest, nil
	}
	for k := range nd.cnt {
		kid := nd.e[k].kid
		m, err := c.node(kid, dep+1)
		if err != nil {
			return 0, err
		}
		if kn := &tr.nodes[kid]; nd.e[k].start != kn.e[0].start || nd.e[k].slot != kn.e[0].slot || nd.e[k].end != m {
			return 0, corrupt("host %d: interval-tree node %d keeps child %d as from slot %d at %d, ending by %d; want slot %d at %d, %d",
				c.h, n, k, nd.e[k].slot, nd.e[k].start, nd.e[k].end, kn.e[0].slot, kn.e[0].start, m)
		}
		latest = max(latest, m)
	}
	return latest, nil
}

// checkProfiles checks every host's change-point tree (checkCP), that
// its deltas are what the reservations imply, none all zero, and the
// flat copies of its peak and capacity.
func (t *Table) checkProfiles() error {
	for h := range t.hosts {
		want := t.expectedDeltas(HostID(h))
		cp := &t.cp[h]
		err := t.checkCP(HostID(h), func(k int64, delta []int64) error {
			d, ok := want[k]
			if !ok || !equal(d, delta) {
				return corrupt("host %d: delta at %d is %v, want %v", h, k, delta, d)
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
		d := cp.dims
		for j := range d {
			want := max(0, cp.whole(j).m)
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

// checkCP checks host h's change-point tree: keys in order, no empty
// node, every leaf at one depth and linked to its neighbours in order,
// each child's smallest key and summary as its parent keeps them, the
// whole tree's summary, the count of change points and the nodes'
// accounting. It calls visit on every change point in order.
func (t *Table) checkCP(h HostID, visit func(key int64, delta []int64) error) error {
	p := &t.cp[h]
	c := cpCheck{p: p, h: h, visit: visit, depth: -1, last: nilNode}
	if p.root >= 0 {
		s, m := make([]int64, p.dims), make([]int64, p.dims)
		if err := c.node(p.root, 0, s, m); err != nil {
			return err
		}
		for j := range p.dims {
			if p.top[j] != s[j] || p.top[p.dims+j] != m[j] {
				return corrupt("host %d: change-point tree summary %v, want sum %v and peak %v", h, p.top, s, m)
			}
		}
		if p.nodes[c.last].next != nilNode {
			return corrupt("host %d: last change-point leaf links on to %d", h, p.nodes[c.last].next)
		}
	} else if !allZero(p.top) {
		return corrupt("host %d: empty change-point tree with summary %v", h, p.top)
	}
	if c.points != p.n {
		return corrupt("host %d: %d change points reached, %d counted", h, c.points, p.n)
	}
	if c.nodes+len(p.free) != len(p.nodes) {
		return corrupt("host %d: %d change-point nodes reached, %d free, %d in all", h, c.nodes, len(p.free), len(p.nodes))
	}
	return nil
}

// cpCheck is the state of checkCP's walk.
type cpCheck struct {
	p             *cpTree
	h             HostID
	visit         func(int64, []int64) error
	depth         int   // the leaves' depth, -1 before the first
	last          int32 // the last leaf reached
	prev          int64 // the last key reached
	points, nodes int
}

// node checks subtree n at depth dep and writes its summary to sum, mx.
func (c *cpCheck) node(n int32, dep int, sum, mx []int64) error {
	p := c.p
	nd := &p.nodes[n]
	c.nodes++
	if nd.cnt < 1 || nd.cnt > cpFan {
		return corrupt("host %d: change-point node %d holds %d entries", c.h, n, nd.cnt)
	}
	for j := range sum {
		sum[j], mx[j] = 0, math.MinInt64
	}
	if nd.leaf {
		if c.depth >= 0 && dep != c.depth {
			return corrupt("host %d: change-point leaves at depths %d and %d", c.h, c.depth, dep)
		}
		c.depth = dep
		if nd.prev != c.last || (c.last >= 0 && p.nodes[c.last].next != n) {
			return corrupt("host %d: change-point leaf %d not linked after leaf %d", c.h, n, c.last)
		}
		c.last = n
		for e := range nd.cnt {
			k, d := nd.keys[e], p.leafDelta(n, e)
			if c.points > 0 && k <= c.prev {
				return corrupt("host %d: change points out of order at %d", c.h, k)
			}
			c.prev = k
			c.points++
			if err := c.visit(k, d); err != nil {
				return err
			}
			for j, v := range d {
				sum[j] += v
				mx[j] = max(mx[j], sum[j])
			}
		}
		return nil
	}
	s, m := make([]int64, p.dims), make([]int64, p.dims)
	for k := range nd.cnt {
		kid := nd.kids[k]
		if err := c.node(kid, dep+1, s, m); err != nil {
			return err
		}
		if nd.keys[k] != p.nodes[kid].keys[0] || !equal(s, p.kidSum(n, k)) || !equal(m, p.kidMax(n, k)) {
			return corrupt("host %d: change-point node %d keeps child %d as from %d, %v, %v; want from %d, %v, %v",
				c.h, n, k, nd.keys[k], p.kidSum(n, k), p.kidMax(n, k), p.nodes[kid].keys[0], s, m)
		}
		for j := range sum {
			mx[j] = max(mx[j], sum[j]+m[j])
			sum[j] += s[j]
		}
	}
	return nil
}

// checkMset checks the global multiset against the hosts' change points.
func (t *Table) checkMset() error {
	want := make(map[int64]int32)
	for h := range t.hosts {
		_ = t.checkCP(HostID(h), func(k int64, _ []int64) error {
			want[k]++
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
