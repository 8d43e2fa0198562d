package slottable

// cpNode is one change point of one host's usage profile: a node of that
// host's treap, keyed by time.
type cpNode struct {
	key int64
	treapLink
}

// cpPool holds the nodes of every host's change-point treap (each host has
// its own root; the nodes share the pool). Node n's vectors live in
// vec[n*3*dims:]: first the delta at the node's time, then the sum of the
// deltas in its subtree, then the maximum over the subtree's in-order
// non-empty prefixes of the prefix sum, dimension by dimension. Freed nodes
// are recycled through free.
type cpPool struct {
	dims  int
	nodes []cpNode
	vec   []int64
	free  []int32
	rng   prng
}

// stride is the number of int64s one node occupies in vec.
func (p *cpPool) stride() int { return 3 * p.dims }

// delta returns node n's delta vector (aliasing the pool).
func (p *cpPool) delta(n int32) []int64 {
	o := int(n) * p.stride()
	return p.vec[o : o+p.dims : o+p.dims]
}

// clone returns an independent copy of the pool.
func (p *cpPool) clone() cpPool {
	return cpPool{
		dims:  p.dims,
		nodes: append([]cpNode(nil), p.nodes...),
		vec:   append([]int64(nil), p.vec...),
		free:  append([]int32(nil), p.free...),
		rng:   p.rng,
	}
}

// alloc makes a leaf at key holding sign*res.
func (p *cpPool) alloc(key int64, res Resources, sign int64) int32 {
	var n int32
	if k := len(p.free); k > 0 {
		n = p.free[k-1]
		p.free = p.free[:k-1]
	} else {
		n = int32(len(p.nodes))
		p.nodes = append(p.nodes, cpNode{})
		for range p.stride() {
			p.vec = append(p.vec, 0)
		}
	}
	p.nodes[n] = cpNode{key: key, treapLink: treapLink{prio: p.rng.next(), l: nilNode, r: nilNode}}
	d := p.delta(n)
	for j, v := range res {
		d[j] = sign * v
	}
	p.pull(n)
	return n
}

// release puts node n on the free list.
func (p *cpPool) release(n int32) {
	p.nodes[n] = cpNode{treapLink: treapLink{l: nilNode, r: nilNode}}
	p.free = append(p.free, n)
}

// pull recomputes node n's aggregates from its delta and its children.
func (p *cpPool) pull(n int32) {
	d := p.dims
	l, r := p.nodes[n].l, p.nodes[n].r
	o := int(n) * 3 * d
	lo, ro := int(l)*3*d, int(r)*3*d
	for j := range d {
		s := p.vec[o+j]
		m := s
		if l >= 0 {
			s += p.vec[lo+d+j]
			m = max(p.vec[lo+2*d+j], s)
		}
		if r >= 0 {
			m = max(m, s+p.vec[ro+2*d+j])
			s += p.vec[ro+d+j]
		}
		p.vec[o+d+j] = s
		p.vec[o+2*d+j] = m
	}
}

func (p *cpPool) rotRight(n int32) int32 {
	l := p.nodes[n].l
	p.nodes[n].l = p.nodes[l].r
	p.nodes[l].r = n
	p.pull(n)
	p.pull(l)
	return l
}

func (p *cpPool) rotLeft(n int32) int32 {
	r := p.nodes[n].r
	p.nodes[n].r = p.nodes[r].l
	p.nodes[r].l = n
	p.pull(n)
	p.pull(r)
	return r
}

// add adds sign*res to the delta at key in the treap rooted at n and
// returns the new root and whether a node was created (+1), deleted
// because its delta became all zero (-1), or neither (0). res must not be
// all zero.
func (p *cpPool) add(n int32, key int64, res Resources, sign int64) (int32, int) {
	if n < 0 {
		return p.alloc(key, res, sign), +1
	}
	k := p.nodes[n].key
	switch {
	case key < k:
		c, ch := p.add(p.nodes[n].l, key, res, sign)
		p.nodes[n].l = c
		if ch > 0 && p.nodes[c].prio > p.nodes[n].prio {
			return p.rotRight(n), ch
		}
		p.pull(n)
		return n, ch
	case key > k:
		c, ch := p.add(p.nodes[n].r, key, res, sign)
		p.nodes[n].r = c
		if ch > 0 && p.nodes[c].prio > p.nodes[n].prio {
			return p.rotLeft(n), ch
		}
		p.pull(n)
		return n, ch
	}
	d := p.delta(n)
	zero := true
	for j, v := range res {
		d[j] += sign * v
		if d[j] != 0 {
			zero = false
		}
	}
	if zero {
		m := treapMerge(p, p.nodes[n].l, p.nodes[n].r)
		p.release(n)
		return m, -1
	}
	p.pull(n)
	return n, 0
}

// prefix adds to out the sum of the deltas at keys <= t.
func (p *cpPool) prefix(n int32, t int64, out []int64) {
	for n >= 0 {
		if p.nodes[n].key > t {
			n = p.nodes[n].l
			continue
		}
		p.addNode(out, n)
		n = p.nodes[n].r
	}
}

// agg is the (sum, max prefix sum) summary of a run of deltas in one
// dimension; ok is false for the empty run. Check uses it to recompute
// the aggregates.
type agg struct {
	s, m int64
	ok   bool
}

// then returns the summary of a followed by b.
func (a agg) then(b agg) agg {
	switch {
	case !a.ok:
		return b
	case !b.ok:
		return a
	}
	return agg{s: a.s + b.s, m: max(a.m, a.s+b.m), ok: true}
}

// whole returns the summary of subtree n in dimension j.
func (p *cpPool) whole(n int32, j int) agg {
	if n < 0 {
		return agg{}
	}
	o := int(n) * 3 * p.dims
	return agg{s: p.vec[o+p.dims+j], m: p.vec[o+2*p.dims+j], ok: true}
}

// single returns the summary of node n alone in dimension j.
func (p *cpPool) single(n int32, j int) agg {
	v := p.vec[int(n)*3*p.dims+j]
	return agg{s: v, m: v, ok: true}
}

// maxUsage writes to out the maximum usage over [from, to) (to > from) of
// the profile rooted at n: the larger of the usage at from and the prefix
// sums at the change points inside (from, to). It takes four root-to-leaf
// paths whatever the number of dimensions: one for the usage at from, one
// down to the node that splits the range, and one down each side of it,
// tracking absolute prefix sums.
func (p *cpPool) maxUsage(n int32, from, to int64, out []int64) {
	clear(out)
	p.prefix(n, from, out)
	if from == posInf || to <= from+1 {
		return
	}
	lo, hi := from+1, to
	d := p.dims
	var buf [16]int64
	scratch := buf[:]
	if 2*d > len(buf) {
		scratch = make([]int64, 2*d)
	}
	base, b := scratch[:d], scratch[d:2*d]
	clear(base)
	for n >= 0 { // down to the split node, summing what lies before it
		nd := &p.nodes[n]
		if nd.key >= hi {
			n = nd.l
			continue
		}
		if nd.key >= lo {
			break
		}
		p.addNode(base, n)
		n = nd.r
	}
	if n < 0 {
		return
	}
	copy(b, base)
	p.addNode(b, n) // b = P(split)
	maxInto(out, b)
	p.maxRight(p.nodes[n].r, hi, b, out)
	p.maxLeft(p.nodes[n].l, lo, base, out)
}

// addNode adds to v the deltas of n's left subtree and of n itself.
func (p *cpPool) addNode(v []int64, n int32) {
	d := p.dims
	o := int(n) * 3 * d
	if l := p.nodes[n].l; l >= 0 {
		lo := int(l) * 3 * d
		for j := range v {
			v[j] += p.vec[lo+d+j]
		}
	}
	for j := range v {
		v[j] += p.vec[o+j]
	}
}

func maxInto(out, v []int64) {
	for j, x := range v {
		out[j] = max(out[j], x)
	}
}

// maxRight raises out to the prefix sums at the keys < hi of subtree n,
// given b, the prefix sum just before the subtree (b is clobbered).
func (p *cpPool) maxRight(n int32, hi int64, b, out []int64) {
	d := p.dims
	for n >= 0 {
		nd := &p.nodes[n]
		if nd.key >= hi {
			n = nd.l
			continue
		}
		if nd.l >= 0 {
			lo := int(nd.l) * 3 * d
			for j := range b {
				out[j] = max(out[j], b[j]+p.vec[lo+2*d+j])
			}
		}
		p.addNode(b, n)
		maxInto(out, b)
		n = nd.r
	}
}

// maxLeft raises out to the prefix sums at the keys >= lo of subtree n,
// given b, the prefix sum just before the subtree (b is clobbered).
func (p *cpPool) maxLeft(n int32, lo int64, b, out []int64) {
	d := p.dims
	for n >= 0 {
		nd := &p.nodes[n]
		if nd.key < lo {
			p.addNode(b, n)
			n = nd.r
			continue
		}
		o, ro := int(n)*3*d, int(nd.r)*3*d
		lsum := 0
		if nd.l >= 0 {
			lsum = int(nd.l)*3*d + d
		}
		for j := range b {
			v := b[j] + p.vec[o+j] // P(n)
			if nd.l >= 0 {
				v += p.vec[lsum+j]
			}
			out[j] = max(out[j], v)
			if nd.r >= 0 {
				out[j] = max(out[j], v+p.vec[ro+2*d+j])
			}
		}
		n = nd.l
	}
}

// seek descends to the first key > t, adding to usage the deltas at keys
// <= t and returning the stack of pending in-order ancestors (for pop).
func (p *cpPool) seek(n int32, t int64, usage []int64, stack []int32) []int32 {
	for n >= 0 {
		if p.nodes[n].key > t {
			stack = append(stack, n)
			n = p.nodes[n].l
			continue
		}
		p.addNode(usage, n)
		n = p.nodes[n].r
	}
	return stack
}

// pop takes the next node in order from a seek stack.
func (p *cpPool) pop(stack []int32) (int32, []int32) {
	n := stack[len(stack)-1]
	stack = stack[:len(stack)-1]
	for c := p.nodes[n].r; c >= 0; c = p.nodes[c].l {
		stack = append(stack, c)
	}
	return n, stack
}

func (p *cpPool) link(n int32) *treapLink { return &p.nodes[n].treapLink }
