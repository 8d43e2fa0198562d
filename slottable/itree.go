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
	// sameNext says that the next node in (start, ID) order has the same
	// start (Table.RenumberAll reads it; insert and remove keep it).
	sameNext bool
}

// itree is the pool of interval-treap nodes of every host, indexed by
// reservation slot.
type itree struct {
	nodes []iNode
	rng   prng
	// pred and succ are insert's and remove's scratch: the nearest nodes
	// before and after the key on the way down (nilNode for none).
	pred, succ int32
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

// insert links slot s (whose node fields are set) into the treap at n,
// the root of its host's treap, and sets sameNext for s and the node
// before it.
func (t *itree) insert(n, s int32) int32 {
	t.pred, t.succ = nilNode, nilNode
	root := t.insertAt(n, s)
	nd := &t.nodes[s]
	nd.sameNext = t.succ >= 0 && t.nodes[t.succ].start == nd.start
	if t.pred >= 0 {
		t.nodes[t.pred].sameNext = t.nodes[t.pred].start == nd.start
	}
	return root
}

// insertAt is insert below n, noting on the way down the last node the
// path went right at (pred: before the key) and left at (succ: after
// it), a new leaf's neighbours in key order (rotations keep the order).
func (t *itree) insertAt(n, s int32) int32 {
	if n < 0 {
		t.nodes[s].prio = t.rng.next()
		t.nodes[s].l, t.nodes[s].r = nilNode, nilNode
		t.pull(s)
		return s
	}
	if t.before(s, t.nodes[n].start, t.nodes[n].id) {
		t.succ = n
		c := t.insertAt(t.nodes[n].l, s)
		t.nodes[n].l = c
		if t.nodes[c].prio > t.nodes[n].prio {
			t.nodes[n].l = t.nodes[c].r
			t.nodes[c].r = n
			t.pull(n)
			t.pull(c)
			return c
		}
	} else {
		t.pred = n
		c := t.insertAt(t.nodes[n].r, s)
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

// remove unlinks slot s from the treap at n, the root of its host's
// treap, and keeps sameNext of the node before it: that node's next is
// s's next now.
func (t *itree) remove(n, s int32) int32 {
	t.pred = nilNode
	return t.removeAt(n, s)
}

// removeAt is remove below n, noting in pred the last node the path
// went right at on the way down (s's predecessor when s has no left
// subtree).
func (t *itree) removeAt(n, s int32) int32 {
	if n < 0 {
		return n
	}
	if n == s {
		nd := &t.nodes[n]
		p := t.pred
		for c := nd.l; c >= 0; c = t.nodes[c].r {
			p = c // s's predecessor: the last node of its left subtree
		}
		if p >= 0 && t.nodes[p].start == nd.start {
			t.nodes[p].sameNext = nd.sameNext
		}
		return treapMerge(t, nd.l, nd.r)
	}
	if t.before(s, t.nodes[n].start, t.nodes[n].id) {
		c := t.removeAt(t.nodes[n].l, s)
		t.nodes[n].l = c
	} else {
		t.pred = n
		c := t.removeAt(t.nodes[n].r, s)
		t.nodes[n].r = c
	}
	t.pull(n)
	return n
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
