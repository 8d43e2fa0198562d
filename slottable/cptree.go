package slottable

// cpFan is the most entries a node of a change-point tree holds: change
// points in a leaf, children in an inner node.
const cpFan = 32

// cpNode is a node of one host's change-point tree. A leaf holds up to
// cpFan change points in key order; an inner node up to cpFan children in
// key order, keys[c] being the smallest key under child c. Every node
// holds at least one entry, and every leaf lies at the same depth.
type cpNode struct {
	cnt  int32
	leaf bool
	leafLinks
	keys [cpFan]int64
	kids [cpFan]int32 // inner nodes: the children
}

// cpTree is one host's usage profile: the times its usage changes, each
// with its delta vector, in a B+-tree. An inner node keeps beside each
// child the child's summary, dimension by dimension: the sum of its
// deltas, and the maximum over its non-empty prefixes of their sums. The
// usage at a time, and the peak usage over an interval, are then read on
// a few root-to-leaf paths, and an insert or a removal rewrites one path.
// A tree of wide nodes rather than a binary one because its nodes are
// few: on a host with thousands of change points each step down a binary
// tree was a cache miss (README, "Slot-table scaling").
type cpTree struct {
	dims  int
	root  int32 // nilNode when the host has no change point
	n     int   // change points
	nodes []cpNode
	vec   []int64 // node i's vectors from vec[i*stride()] (see leafDelta, kidSum, kidMax)
	free  []int32
	top   []int64 // the whole tree's summary: the sum (dims values), then the maximum prefix sum
}

// stride is the number of int64s one node occupies in vec: a leaf uses
// the first half (one delta vector an entry), an inner node both (the
// children's sums, then their maximum prefix sums).
func (p *cpTree) stride() int { return 2 * cpFan * p.dims }

// leafDelta returns the delta of leaf n's entry e (aliasing the tree).
func (p *cpTree) leafDelta(n, e int32) []int64 {
	o := int(n)*p.stride() + int(e)*p.dims
	return p.vec[o : o+p.dims : o+p.dims]
}

// kidSum and kidMax return the summary that inner node n keeps of its
// child c (aliasing the tree).
func (p *cpTree) kidSum(n, c int32) []int64 {
	o := int(n)*p.stride() + int(c)*p.dims
	return p.vec[o : o+p.dims : o+p.dims]
}

func (p *cpTree) kidMax(n, c int32) []int64 {
	o := int(n)*p.stride() + (cpFan+int(c))*p.dims
	return p.vec[o : o+p.dims : o+p.dims]
}

func newCPTree(dims int) cpTree {
	return cpTree{dims: dims, root: nilNode, top: make([]int64, 2*dims)}
}

// cloneInto returns an independent copy of the tree, in the memory of dst
// (a copy not used again; the zero cpTree: new memory).
func (p *cpTree) cloneInto(dst cpTree) cpTree {
	c := *p
	c.nodes = append(dst.nodes[:0], p.nodes...)
	c.vec = append(dst.vec[:0], p.vec...)
	c.free = append(dst.free[:0], p.free...)
	c.top = append(dst.top[:0], p.top...)
	return c
}

// alloc returns an empty node.
func (p *cpTree) alloc(leaf bool) int32 {
	var n int32
	if k := len(p.free); k > 0 {
		n = p.free[k-1]
		p.free = p.free[:k-1]
	} else {
		n = int32(len(p.nodes))
		p.nodes = append(p.nodes, cpNode{})
		p.vec = append(p.vec, make([]int64, p.stride())...)
	}
	p.nodes[n].cnt, p.nodes[n].leaf = 0, leaf
	p.nodes[n].leafLinks = leafLinks{nilNode, nilNode}
	return n
}

// release puts node n on the free list, unlinking it from the leaves.
func (p *cpTree) release(n int32) {
	nd := &p.nodes[n]
	if nd.leaf {
		nd.unlink(p.links)
	}
	nd.cnt = 0
	p.free = append(p.free, n)
}

// summarize writes node n's summary (the sum of its deltas and their
// largest prefix sum) to sum and mx. n must not be empty.
func (p *cpTree) summarize(n int32, sum, mx []int64) {
	nd := &p.nodes[n]
	d, o := p.dims, int(n)*p.stride()
	if nd.leaf {
		if d == 2 { // cpu and memory: both in one pass
			v := p.vec[o : o+2*int(nd.cnt)]
			s0, s1 := v[0], v[1]
			m0, m1 := s0, s1
			for i := 2; i+1 < len(v); i += 2 {
				s0 += v[i]
				s1 += v[i+1]
				m0, m1 = max(m0, s0), max(m1, s1)
			}
			sum[0], sum[1], mx[0], mx[1] = s0, s1, m0, m1
			return
		}
		for j := range d {
			s := p.vec[o+j]
			m := s
			for e := 1; e < int(nd.cnt); e++ {
				s += p.vec[o+e*d+j]
				m = max(m, s)
			}
			sum[j], mx[j] = s, m
		}
		return
	}
	mo := o + cpFan*d
	for j := range d {
		s, m := p.vec[o+j], p.vec[mo+j]
		for c := 1; c < int(nd.cnt); c++ {
			m = max(m, s+p.vec[mo+c*d+j])
			s += p.vec[o+c*d+j]
		}
		sum[j], mx[j] = s, m
	}
}

// shift moves node n's entries [from, cnt) by k places (k = 1 or -1),
// keys, children and vectors alike, and sets cnt.
func (p *cpTree) shift(n, from, k int32) {
	nd := &p.nodes[n]
	cnt := nd.cnt
	copy(nd.keys[from+k:cnt+k], nd.keys[from:cnt])
	d, o := p.dims, int(n)*p.stride()
	copy(p.vec[o+int(from+k)*d:o+int(cnt+k)*d], p.vec[o+int(from)*d:o+int(cnt)*d])
	if !nd.leaf {
		copy(nd.kids[from+k:cnt+k], nd.kids[from:cnt])
		mo := o + cpFan*d
		copy(p.vec[mo+int(from+k)*d:mo+int(cnt+k)*d], p.vec[mo+int(from)*d:mo+int(cnt)*d])
	}
	nd.cnt = cnt + k
}

// split moves the upper half of full node n to a new node, which it
// returns (linked after n when they are leaves).
func (p *cpTree) split(n int32) int32 {
	m := p.alloc(p.nodes[n].leaf)
	a, b := &p.nodes[n], &p.nodes[m]
	h := a.cnt / 2
	k := a.cnt - h
	copy(b.keys[:k], a.keys[h:a.cnt])
	d, no, mo := p.dims, int(n)*p.stride(), int(m)*p.stride()
	copy(p.vec[mo:mo+int(k)*d], p.vec[no+int(h)*d:no+int(a.cnt)*d])
	if a.leaf {
		a.linkAfter(n, m, &b.leafLinks, p.links)
	} else {
		copy(b.kids[:k], a.kids[h:a.cnt])
		x := cpFan * d
		copy(p.vec[mo+x:mo+x+int(k)*d], p.vec[no+x+int(h)*d:no+x+int(a.cnt)*d])
	}
	a.cnt, b.cnt = h, k
	return m
}

func (p *cpTree) links(n int32) *leafLinks { return &p.nodes[n].leafLinks }

// cpStep is one step of a descent: the inner node and the child taken.
type cpStep struct{ n, c int32 }

// add adds sign*res to the delta at key and returns whether a change
// point was created (+1), deleted because its delta became all zero (-1),
// or neither (0). res must not be all zero. The whole tree's summary
// (whole) is left for refreshTop: a reservation's two change points go
// in before it is read again (Table.applyPair).
func (p *cpTree) add(key int64, res Resources, sign int64) int {
	if p.root < 0 {
		p.root = p.alloc(true)
	}
	var buf [12]cpStep
	path := buf[:0]
	n := p.root
	for !p.nodes[n].leaf {
		c := p.childFor(n, key)
		path = append(path, cpStep{n, c})
		n = p.nodes[n].kids[c]
	}
	nd := &p.nodes[n]
	e := int32(0)
	for e < nd.cnt && nd.keys[e] < key {
		e++
	}
	ch := 0
	right := nilNode // a new right sibling of the node below, for its parent
	if e < nd.cnt && nd.keys[e] == key {
		d := p.leafDelta(n, e)
		zero := true
		for j, v := range res {
			d[j] += sign * v
			if d[j] != 0 {
				zero = false
			}
		}
		if zero {
			p.shift(n, e+1, -1)
			ch = -1
		}
	} else {
		ch = +1
		if nd.cnt == cpFan {
			right = p.split(n)
			if h := p.nodes[n].cnt; e > h {
				n, e = right, e-h
			}
		}
		p.shift(n, e, +1)
		p.nodes[n].keys[e] = key
		d := p.leafDelta(n, e)
		for j, v := range res {
			d[j] = sign * v
		}
	}
	p.n += ch
	for i := len(path) - 1; i >= 0; i-- {
		pn, c := path[i].n, path[i].c
		right = p.update(pn, c, right)
	}
	if right >= 0 { // the root split: a new root above the two halves
		r := p.alloc(false)
		p.nodes[r].cnt = 2
		p.nodes[r].kids[0], p.nodes[r].kids[1] = p.root, right
		p.root = r
		p.refresh(r, 0)
		p.refresh(r, 1)
	}
	for p.nodes[p.root].cnt == 1 && !p.nodes[p.root].leaf { // a root with one child gives way to it
		r := p.root
		p.root = p.nodes[r].kids[0]
		p.release(r)
	}
	if p.nodes[p.root].cnt == 0 {
		p.release(p.root)
		p.root = nilNode
	}
	return ch
}

// refreshTop rewrites the whole tree's summary (whole) after add.
func (p *cpTree) refreshTop() {
	if p.root < 0 {
		clear(p.top)
		return
	}
	p.summarize(p.root, p.top[:p.dims], p.top[p.dims:])
}

// childFor returns the child of inner node n whose keys range holds key:
// the last with keys[c] <= key, or the first.
func (p *cpTree) childFor(n int32, key int64) int32 {
	nd := &p.nodes[n]
	lo, hi := int32(1), nd.cnt // the answer is in [lo-1, hi)
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if nd.keys[m] <= key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// refresh rewrites what inner node n keeps of its child c: the child's
// smallest key and its summary.
func (p *cpTree) refresh(n, c int32) {
	k := p.nodes[n].kids[c]
	p.nodes[n].keys[c] = p.nodes[k].keys[0]
	p.summarize(k, p.kidSum(n, c), p.kidMax(n, c))
}

// update brings inner node n up to date after a change to its child c,
// which may have emptied or split (right, its new upper half); it returns
// n's own new upper half if n split in turn.
func (p *cpTree) update(n, c, right int32) int32 {
	if p.nodes[p.nodes[n].kids[c]].cnt == 0 {
		p.release(p.nodes[n].kids[c])
		p.shift(n, c+1, -1)
		return nilNode
	}
	p.refresh(n, c)
	if right < 0 {
		return nilNode
	}
	up := nilNode
	at := c + 1
	if p.nodes[n].cnt == cpFan {
		up = p.split(n)
		if h := p.nodes[n].cnt; at > h {
			n, at = up, at-h
		}
	}
	p.shift(n, at, +1)
	p.nodes[n].kids[at] = right
	p.refresh(n, at)
	return up
}

// whole returns the whole profile's summary in dimension j (ok false when
// the host has no change point).
func (p *cpTree) whole(j int) agg {
	if p.root < 0 {
		return agg{}
	}
	return agg{s: p.top[j], m: p.top[p.dims+j], ok: true}
}

// prefix adds to out the sum of the deltas at keys <= t: the usage at t.
func (p *cpTree) prefix(t int64, out []int64) {
	n := p.root
	for n >= 0 {
		nd := &p.nodes[n]
		if nd.leaf {
			for e := int32(0); e < nd.cnt && nd.keys[e] <= t; e++ {
				for j, v := range p.leafDelta(n, e) {
					out[j] += v
				}
			}
			return
		}
		c := p.childFor(n, t)
		if nd.keys[c] > t {
			return
		}
		for i := int32(0); i < c; i++ {
			for j, v := range p.kidSum(n, i) {
				out[j] += v
			}
		}
		n = nd.kids[c]
	}
}

// agg is the (sum, max prefix sum) summary of a run of deltas in one
// dimension; ok is false for the empty run.
type agg struct {
	s, m int64
	ok   bool
}

// maxUsage writes to out the maximum usage over [from, to) (to > from):
// the larger of the usage at from and the prefix sums at the change
// points inside (from, to). It reads the usage at from on one path, and
// the peak on the paths down to from and to, taking the children wholly
// inside from their parents' summaries.
func (p *cpTree) maxUsage(from, to int64, out []int64) {
	clear(out)
	if p.root >= 0 && p.nodes[p.root].leaf && p.dims == 2 {
		p.leafMaxUsage(from, to, out)
		return
	}
	p.prefix(from, out)
	if from == posInf || to <= from+1 || p.root < 0 {
		return
	}
	var buf [8]int64
	run := buf[:]
	if p.dims > len(buf) {
		run = make([]int64, p.dims)
	}
	run = run[:p.dims]
	clear(run)
	p.rangeMax(p.root, from+1, to, 0, false, run, out)
}

// leafMaxUsage is maxUsage on a tree whose root is a leaf, in two
// dimensions (most hosts' trees: cpFan change points or fewer), in one
// pass over the leaf.
func (p *cpTree) leafMaxUsage(from, to int64, out []int64) {
	keys, v := p.leaf2(p.root)
	e, u0, u1 := leafPrefix2(keys, v, from)
	m0, m1 := u0, u1
	if from != posInf && to > from+1 {
		for ; e < len(keys) && keys[e] < to; e++ {
			u0 += v[2*e]
			u1 += v[2*e+1]
			m0, m1 = max(m0, u0), max(m1, u1)
		}
	}
	out[0], out[1] = m0, m1
}

// leaf2 returns leaf n's keys and its deltas, two a key (a tree of two
// dimensions).
func (p *cpTree) leaf2(n int32) ([]int64, []int64) {
	keys := p.nodes[n].keys[:p.nodes[n].cnt]
	return keys, p.vec[int(n)*p.stride():][:2*len(keys)]
}

// leafPrefix2 returns the index of the first of a leaf's keys after t and
// the sums of the deltas (v, two a key) at the keys before it.
func leafPrefix2(keys, v []int64, t int64) (e int, u0, u1 int64) {
	for ; e < len(keys) && keys[e] <= t; e++ {
		u0 += v[2*e]
		u1 += v[2*e+1]
	}
	return e, u0, u1
}

// rangeMax raises out to the prefix sums at the keys in [lo, hi) of the
// subtree n, given run, the sum of the deltas before it; it adds to run
// the deltas of the subtree's keys below hi. The subtree's keys lie below
// ub when bounded.
func (p *cpTree) rangeMax(n int32, lo, hi, ub int64, bounded bool, run, out []int64) {
	nd := &p.nodes[n]
	d, o := p.dims, int(n)*p.stride()
	if nd.leaf {
		for e := 0; e < int(nd.cnt); e++ {
			k := nd.keys[e]
			if k >= hi {
				return
			}
			for j := range run {
				run[j] += p.vec[o+e*d+j]
			}
			if k >= lo {
				maxInto(out, run)
			}
		}
		return
	}
	mo := o + cpFan*d
	for c := 0; c < int(nd.cnt); c++ {
		k := nd.keys[c]
		if k >= hi {
			return
		}
		cub, cb := ub, bounded
		if c+1 < int(nd.cnt) {
			cub, cb = nd.keys[c+1], true
		}
		switch {
		case cb && cub <= lo: // wholly before lo
			for j := range run {
				run[j] += p.vec[o+c*d+j]
			}
		case cb && k >= lo && cub <= hi: // wholly inside
			for j := range run {
				out[j] = max(out[j], run[j]+p.vec[mo+c*d+j])
				run[j] += p.vec[o+c*d+j]
			}
		default:
			p.rangeMax(nd.kids[c], lo, hi, cub, cb, run, out)
		}
	}
}

func maxInto(out, v []int64) {
	for j, x := range v {
		out[j] = max(out[j], x)
	}
}

// cpIter is a position in a tree's change points: entry e of leaf n, or
// the end when n is nilNode.
type cpIter struct{ n, e int32 }

// seek returns the position of the first change point after t, adding
// to usage the deltas at keys <= t.
func (p *cpTree) seek(t int64, usage []int64) cpIter {
	n := p.root
	if n < 0 {
		return cpIter{nilNode, 0}
	}
	for !p.nodes[n].leaf {
		nd := &p.nodes[n]
		c := p.childFor(n, t)
		if nd.keys[c] <= t {
			for i := int32(0); i < c; i++ {
				for j, v := range p.kidSum(n, i) {
					usage[j] += v
				}
			}
		}
		n = nd.kids[c]
	}
	nd := &p.nodes[n]
	e := int32(0)
	if p.dims == 2 {
		keys, v := p.leaf2(n)
		k, u0, u1 := leafPrefix2(keys, v, t)
		e = int32(k)
		usage[0] += u0
		usage[1] += u1
	} else {
		for ; e < nd.cnt && nd.keys[e] <= t; e++ {
			for j, v := range p.leafDelta(n, e) {
				usage[j] += v
			}
		}
	}
	if e == nd.cnt {
		return cpIter{nd.next, 0}
	}
	return cpIter{n, e}
}

// key returns the key at it (which must not be the end).
func (p *cpTree) key(it cpIter) int64 { return p.nodes[it.n].keys[it.e] }

// step returns the delta at it (aliasing the tree) and moves it on.
func (p *cpTree) step(it *cpIter) []int64 {
	d := p.leafDelta(it.n, it.e)
	if it.e++; it.e == p.nodes[it.n].cnt {
		it.n, it.e = p.nodes[it.n].next, 0
	}
	return d
}
