package slottable

// iNode is the interval-treap node of the reservation in the same slot:
// each host's reservations form a treap keyed by (start, ID) and
// augmented with the latest end in each subtree, so that the reservations
// overlapping an interval are found without scanning the rest.
type iNode struct {
	start, end int64
	maxEnd     int64
	id         ResID
	treapLink
}

// itree is the pool of interval-treap nodes of every host, indexed by
// reservation slot.
type itree struct {
	nodes []iNode
	rng   prng
}

// before reports whether node a sorts before the key (start, id).
func (t *itree) before(a int32, start int64, id ResID) bool {
	n := &t.nodes[a]
	return n.start < start || n.start == start && n.id < id
}

func (t *itree) pull(n int32) {
	nd := &t.nodes[n]
	m := nd.end
	if nd.l >= 0 {
		m = max(m, t.nodes[nd.l].maxEnd)
	}
	if nd.r >= 0 {
		m = max(m, t.nodes[nd.r].maxEnd)
	}
	nd.maxEnd = m
}

// insert links slot s (whose node fields are set) into the treap at n.
func (t *itree) insert(n, s int32) int32 {
	if n < 0 {
		t.nodes[s].prio = t.rng.next()
		t.nodes[s].l, t.nodes[s].r = nilNode, nilNode
		t.pull(s)
		return s
	}
	if t.before(s, t.nodes[n].start, t.nodes[n].id) {
		c := t.insert(t.nodes[n].l, s)
		t.nodes[n].l = c
		if t.nodes[c].prio > t.nodes[n].prio {
			t.nodes[n].l = t.nodes[c].r
			t.nodes[c].r = n
			t.pull(n)
			t.pull(c)
			return c
		}
	} else {
		c := t.insert(t.nodes[n].r, s)
		t.nodes[n].r = c
		if t.nodes[c].prio > t.nodes[n].prio {
			t.nodes[n].r = t.nodes[c].l
			t.nodes[c].l = n
			t.pull(n)
			t.pull(c)
			return c
		}
	}
	t.pull(n)
	return n
}

// remove unlinks slot s from the treap at n.
func (t *itree) remove(n, s int32) int32 {
	if n < 0 {
		return n
	}
	if n == s {
		return treapMerge(t, t.nodes[n].l, t.nodes[n].r)
	}
	if t.before(s, t.nodes[n].start, t.nodes[n].id) {
		c := t.remove(t.nodes[n].l, s)
		t.nodes[n].l = c
	} else {
		c := t.remove(t.nodes[n].r, s)
		t.nodes[n].r = c
	}
	t.pull(n)
	return n
}

// laterSameStart reports whether the treap at n holds a node with the
// given start and an ID above id: one whose key lies between (start, id)
// and the same start with any larger ID.
func (t *itree) laterSameStart(n int32, start int64, id ResID) bool {
	for n >= 0 {
		nd := &t.nodes[n]
		switch {
		case nd.start > start:
			n = nd.l
		case nd.start < start || nd.id <= id:
			n = nd.r
		default:
			return true
		}
	}
	return false
}

// setEnd changes slot s's end and fixes the aggregates on its path.
func (t *itree) setEnd(n, s int32, end int64) {
	if n < 0 {
		return
	}
	switch {
	case n == s:
		t.nodes[s].end = end
	case t.before(s, t.nodes[n].start, t.nodes[n].id):
		t.setEnd(t.nodes[n].l, s, end)
	default:
		t.setEnd(t.nodes[n].r, s, end)
	}
	t.pull(n)
}

// visit calls fn, in (start, ID) order, on every slot of the treap at n
// whose interval overlaps [from, to); it stops when fn returns false.
func (t *itree) visit(n int32, from, to int64, fn func(s int32) bool) bool {
	for n >= 0 {
		nd := &t.nodes[n]
		if nd.maxEnd <= from {
			return true
		}
		if !t.visit(nd.l, from, to, fn) {
			return false
		}
		if nd.start >= to {
			return true
		}
		if nd.end > from && !fn(n) {
			return false
		}
		n = nd.r
	}
	return true
}

func (t *itree) link(n int32) *treapLink { return &t.nodes[n].treapLink }
