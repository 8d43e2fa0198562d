package slottable

// treapLink is the part of a treap node that the operations shared by
// the treaps of this package (the hosts' intervals) read and write: the
// heap priority and the children.
type treapLink struct {
	prio uint64
	l, r int32
}

// treapPool is a pool of treap nodes addressed by index: link gives node
// n's links and pull recomputes n's subtree aggregates from its children
// (a no-op for a treap without aggregates).
type treapPool interface {
	link(n int32) *treapLink
	pull(n int32)
}

// treapMerge joins the treaps rooted at a and b of pool p, whose keys are
// all ordered a < b, and returns the new root.
func treapMerge[P treapPool](p P, a, b int32) int32 {
	if a < 0 {
		return b
	}
	if b < 0 {
		return a
	}
	if p.link(a).prio > p.link(b).prio {
		c := treapMerge(p, p.link(a).r, b)
		p.link(a).r = c
		p.pull(a)
		return a
	}
	c := treapMerge(p, a, p.link(b).l)
	p.link(b).l = c
	p.pull(b)
	return b
}
