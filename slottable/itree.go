package slottable

// iNode is the interval data of the reservation in the same slot: its
// interval and ID, which order the host's interval tree.
type iNode struct {
	start, end int64
	id         ResID
	// sameNext says that the next reservation of the host in (start, ID)
	// order has the same start (Table.RenumberAll reads it; insert and
	// remove keep it).
	sameNext bool
}

// ivFan is the most entries a node of an interval tree holds.
const ivFan = 32

// ivNode is a node of one host's interval tree, a B+-tree of the host's
// reservation slots in (start, ID) order. A leaf holds up to ivFan slots
// with their starts and ends; an inner node up to ivFan children, with
// the start and slot of each child's first reservation and the latest end
// under it. Every node holds at least one entry, every leaf lies at the
// same depth, and the leaves are linked in order.
type ivNode struct {
	cnt  int32
	leaf bool
	leafLinks
	e [ivFan]ivEntry
}

// ivEntry is an entry of an interval-tree node, its fields side by side
// so that a node of few entries is a cache line or two.
type ivEntry struct {
	start int64
	end   int64 // leaf: the reservation's end; inner: the latest end under the child
	slot  int32
	kid   int32 // inner nodes: the child
}

// ivTree is one host's interval tree: the reservations overlapping an
// interval are found without scanning the rest, by the latest ends.
type ivTree struct {
	root  int32
	nodes []ivNode
	free  []int32
}

// itree holds the interval data of every slot and each host's interval
// tree.
type itree struct {
	nodes []iNode  // by slot
	hosts []ivTree // by host
}

func (t *itree) addHost() { t.hosts = append(t.hosts, ivTree{root: nilNode}) }

// cloneInto returns an independent copy, in the memory of dst (a copy not
// used again; the zero value: new memory).
func (t *itree) cloneInto(dst itree) itree {
	c := itree{nodes: append(dst.nodes[:0], t.nodes...), hosts: resize(dst.hosts, len(t.hosts))}
	for h, tr := range t.hosts {
		d := c.hosts[h]
		c.hosts[h] = ivTree{
			root:  tr.root,
			nodes: append(d.nodes[:0], tr.nodes...),
			free:  append(d.free[:0], tr.free...),
		}
	}
	return c
}

// before reports whether the key (start, slot a's ID) sorts before
// (start b, slot b's ID).
func (t *itree) before(sa int64, a int32, sb int64, b int32) bool {
	return sa < sb || sa == sb && t.nodes[a].id < t.nodes[b].id
}

func (tr *ivTree) alloc(leaf bool) int32 {
	var n int32
	if k := len(tr.free); k > 0 {
		n = tr.free[k-1]
		tr.free = tr.free[:k-1]
	} else {
		n = int32(len(tr.nodes))
		tr.nodes = append(tr.nodes, ivNode{})
	}
	nd := &tr.nodes[n]
	nd.cnt, nd.leaf, nd.leafLinks = 0, leaf, leafLinks{nilNode, nilNode}
	return n
}

// release puts node n on the free list, unlinking it from the leaves.
func (tr *ivTree) release(n int32) {
	nd := &tr.nodes[n]
	if nd.leaf {
		nd.unlink(tr.links)
	}
	nd.cnt = 0
	tr.free = append(tr.free, n)
}

// latest returns the latest end in node n.
func (tr *ivTree) latest(n int32) int64 {
	nd := &tr.nodes[n]
	m := nd.e[0].end
	for _, e := range nd.e[1:nd.cnt] {
		m = max(m, e.end)
	}
	return m
}

// shift moves node n's entries [from, cnt) by k places (1 or -1).
func (tr *ivTree) shift(n, from, k int32) {
	nd := &tr.nodes[n]
	cnt := nd.cnt
	copy(nd.e[from+k:cnt+k], nd.e[from:cnt])
	nd.cnt = cnt + k
}

// split moves the upper half of full node n to a new node, which it
// returns (linked after n when they are leaves).
func (tr *ivTree) split(n int32) int32 {
	m := tr.alloc(tr.nodes[n].leaf)
	a, b := &tr.nodes[n], &tr.nodes[m]
	h := a.cnt / 2
	k := a.cnt - h
	copy(b.e[:k], a.e[h:a.cnt])
	if a.leaf {
		a.linkAfter(n, m, &b.leafLinks, tr.links)
	}
	a.cnt, b.cnt = h, k
	return m
}

func (tr *ivTree) links(n int32) *leafLinks { return &tr.nodes[n].leafLinks }

// refresh rewrites what inner node n keeps of its child c.
func (tr *ivTree) refresh(n, c int32) {
	nd := &tr.nodes[n]
	k := &tr.nodes[nd.e[c].kid]
	nd.e[c].start, nd.e[c].slot = k.e[0].start, k.e[0].slot
	nd.e[c].end = tr.latest(nd.e[c].kid)
}

// ivStep is one step of a descent: the inner node and the child taken.
type ivStep struct{ n, c int32 }

// descend goes down host tree tr towards the key of slot s, recording
// the inner nodes and children taken in path, and returns the leaf.
func (t *itree) descend(tr *ivTree, s int32, path []ivStep) (int32, []ivStep) {
	st := t.nodes[s].start
	n := tr.root
	for !tr.nodes[n].leaf {
		nd := &tr.nodes[n]
		c := int32(0) // the last child whose first key is at most s's
		for c+1 < nd.cnt && !t.before(st, s, nd.e[c+1].start, nd.e[c+1].slot) {
			c++
		}
		path = append(path, ivStep{n, c})
		n = nd.e[c].kid
	}
	return n, path
}

// fix brings the path's inner nodes up to date from the bottom after a
// change to the leaf below them, which may have emptied or split (right,
// its new upper half), and then the root.
func (tr *ivTree) fix(path []ivStep, right int32) {
	for i := len(path) - 1; i >= 0; i-- {
		n, c := path[i].n, path[i].c
		if tr.nodes[tr.nodes[n].e[c].kid].cnt == 0 {
			tr.release(tr.nodes[n].e[c].kid)
			tr.shift(n, c+1, -1)
			right = nilNode
			continue
		}
		tr.refresh(n, c)
		if right < 0 {
			continue
		}
		up, at := nilNode, c+1
		if tr.nodes[n].cnt == ivFan {
			up = tr.split(n)
			if h := tr.nodes[n].cnt; at > h {
				n, at = up, at-h
			}
		}
		tr.shift(n, at, +1)
		tr.nodes[n].e[at].kid = right
		tr.refresh(n, at)
		right = up
	}
	if right >= 0 { // the root split: a new root above the two halves
		r := tr.alloc(false)
		tr.nodes[r].cnt = 2
		tr.nodes[r].e[0].kid, tr.nodes[r].e[1].kid = tr.root, right
		tr.root = r
		tr.refresh(r, 0)
		tr.refresh(r, 1)
	}
	for tr.nodes[tr.root].cnt == 1 && !tr.nodes[tr.root].leaf { // a root with one child gives way to it
		r := tr.root
		tr.root = tr.nodes[r].e[0].kid
		tr.release(r)
	}
	if tr.nodes[tr.root].cnt == 0 {
		tr.release(tr.root)
		tr.root = nilNode
	}
}

// insert adds slot s (whose interval data are set) to host h's tree and
// sets sameNext for s and the reservation before it.
func (t *itree) insert(h HostID, s int32) {
	tr := &t.hosts[h]
	if tr.root < 0 {
		tr.root = tr.alloc(true)
	}
	var buf [12]ivStep
	n, path := t.descend(tr, s, buf[:0])
	nd := &tr.nodes[n]
	st := t.nodes[s].start
	e := int32(0)
	for e < nd.cnt && t.before(nd.e[e].start, nd.e[e].slot, st, s) {
		e++
	}
	right := nilNode
	if nd.cnt == ivFan {
		right = tr.split(n)
		if h := tr.nodes[n].cnt; e > h {
			n, e = right, e-h
		}
	}
	tr.shift(n, e, +1)
	nd = &tr.nodes[n]
	nd.e[e].start, nd.e[e].slot, nd.e[e].end = st, s, t.nodes[s].end
	next := nilNode
	switch {
	case e+1 < nd.cnt:
		next = nd.e[e+1].slot
	case nd.next >= 0:
		next = tr.nodes[nd.next].e[0].slot
	}
	t.nodes[s].sameNext = next >= 0 && t.nodes[next].start == st
	if prev := tr.slotBefore(n, e); prev >= 0 {
		t.nodes[prev].sameNext = t.nodes[prev].start == st
	}
	tr.fix(path, right)
}

// slotBefore returns the slot before entry e of leaf n (nilNode for
// none).
func (tr *ivTree) slotBefore(n, e int32) int32 {
	nd := &tr.nodes[n]
	switch {
	case e > 0:
		return nd.e[e-1].slot
	case nd.prev >= 0:
		p := &tr.nodes[nd.prev]
		return p.e[p.cnt-1].slot
	}
	return nilNode
}

// find returns the leaf of host tree tr holding slot s, the position of
// s in it, and the path down to it; ok is false if s is not there.
func (t *itree) find(tr *ivTree, s int32, path []ivStep) (n, e int32, _ []ivStep, ok bool) {
	if tr.root < 0 {
		return 0, 0, path, false
	}
	n, path = t.descend(tr, s, path)
	nd := &tr.nodes[n]
	for e < nd.cnt && nd.e[e].slot != s {
		e++
	}
	return n, e, path, e < nd.cnt
}

// remove takes slot s out of host h's tree and keeps sameNext of the
// reservation before it: its next is s's next now.
func (t *itree) remove(h HostID, s int32) {
	tr := &t.hosts[h]
	var buf [12]ivStep
	n, e, path, ok := t.find(tr, s, buf[:0])
	if !ok {
		return
	}
	if prev := tr.slotBefore(n, e); prev >= 0 && t.nodes[prev].start == t.nodes[s].start {
		t.nodes[prev].sameNext = t.nodes[s].sameNext
	}
	tr.shift(n, e+1, -1)
	tr.fix(path, nilNode)
}

// setEnd changes slot s's end (s is in host h's tree) and the latest ends
// above it.
func (t *itree) setEnd(h HostID, s int32, end int64) {
	tr := &t.hosts[h]
	var buf [12]ivStep
	t.nodes[s].end = end
	n, e, path, ok := t.find(tr, s, buf[:0])
	if !ok {
		return
	}
	tr.nodes[n].e[e].end = end
	for i := len(path) - 1; i >= 0; i-- {
		tr.refresh(path[i].n, path[i].c)
	}
}

// visit calls fn, in (start, ID) order, on every slot of host h's tree
// whose interval overlaps [from, to); it stops when fn returns false.
func (t *itree) visit(h HostID, from, to int64, fn func(s int32) bool) {
	tr := &t.hosts[h]
	if tr.root >= 0 {
		tr.visit(tr.root, from, to, fn)
	}
}

// visit is itree.visit below node n; it returns false once the walk is
// over (fn said stop, or a start at or after to was reached).
func (tr *ivTree) visit(n int32, from, to int64, fn func(s int32) bool) bool {
	nd := &tr.nodes[n]
	for c := range nd.cnt {
		if nd.e[c].start >= to {
			return false
		}
		if nd.e[c].end <= from {
			continue
		}
		if nd.leaf {
			if !fn(nd.e[c].slot) {
				return false
			}
		} else if !tr.visit(nd.e[c].kid, from, to, fn) {
			return false
		}
	}
	return true
}

// latestEnd returns the latest end of host h's reservations (false when
// it has none).
func (t *itree) latestEnd(h HostID) (int64, bool) {
	tr := &t.hosts[h]
	if tr.root < 0 {
		return 0, false
	}
	return tr.latest(tr.root), true
}
