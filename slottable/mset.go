package slottable

// msNode is a node of the global multiset of change points: key is a time
// and cnt the number of hosts with a change point there.
type msNode struct {
	key int64
	cnt int32
	treapLink
}

// mset is an ordered multiset of times (a treap with counts), the union
// of every host's change points.
type mset struct {
	nodes []msNode
	free  []int32
	root  int32
	rng   prng
}

func newMset(seed uint64) mset {
	return mset{root: nilNode, rng: prng{s: seed}}
}

func (m *mset) clone() mset {
	return mset{
		nodes: append([]msNode(nil), m.nodes...),
		free:  append([]int32(nil), m.free...),
		root:  m.root,
		rng:   m.rng,
	}
}

func (m *mset) alloc(key int64) int32 {
	nd := msNode{key: key, cnt: 1, treapLink: treapLink{prio: m.rng.next(), l: nilNode, r: nilNode}}
	if k := len(m.free); k > 0 {
		n := m.free[k-1]
		m.free = m.free[:k-1]
		m.nodes[n] = nd
		return n
	}
	m.nodes = append(m.nodes, nd)
	return int32(len(m.nodes) - 1)
}

// inc adds one occurrence of key.
func (m *mset) inc(key int64) { m.root = m.insert(m.root, key) }

func (m *mset) insert(n int32, key int64) int32 {
	if n < 0 {
		return m.alloc(key)
	}
	switch k := m.nodes[n].key; {
	case key < k:
		c := m.insert(m.nodes[n].l, key)
		m.nodes[n].l = c
		if m.nodes[c].prio > m.nodes[n].prio {
			m.nodes[n].l = m.nodes[c].r
			m.nodes[c].r = n
			return c
		}
	case key > k:
		c := m.insert(m.nodes[n].r, key)
		m.nodes[n].r = c
		if m.nodes[c].prio > m.nodes[n].prio {
			m.nodes[n].r = m.nodes[c].l
			m.nodes[c].l = n
			return c
		}
	default:
		m.nodes[n].cnt++
	}
	return n
}

// dec removes one occurrence of key (which must be present).
func (m *mset) dec(key int64) { m.root = m.remove(m.root, key) }

func (m *mset) remove(n int32, key int64) int32 {
	if n < 0 {
		return n
	}
	switch k := m.nodes[n].key; {
	case key < k:
		c := m.remove(m.nodes[n].l, key)
		m.nodes[n].l = c
	case key > k:
		c := m.remove(m.nodes[n].r, key)
		m.nodes[n].r = c
	default:
		m.nodes[n].cnt--
		if m.nodes[n].cnt > 0 {
			return n
		}
		c := treapMerge(m, m.nodes[n].l, m.nodes[n].r)
		m.nodes[n] = msNode{treapLink: treapLink{l: nilNode, r: nilNode}}
		m.free = append(m.free, n)
		return c
	}
	return n
}

// ascend calls fn on the keys in [lo, hi) in increasing order.
func (m *mset) ascend(n int32, lo, hi int64, fn func(key int64)) {
	for n >= 0 {
		nd := m.nodes[n]
		if nd.key < lo {
			n = nd.r
			continue
		}
		if nd.key >= hi {
			n = nd.l
			continue
		}
		m.ascend(nd.l, lo, hi, fn)
		fn(nd.key)
		n = nd.r
	}
}

// after returns the smallest key > t.
func (m *mset) after(t int64) (int64, bool) {
	best, ok := int64(0), false
	for n := m.root; n >= 0; {
		if m.nodes[n].key > t {
			best, ok = m.nodes[n].key, true
			n = m.nodes[n].l
		} else {
			n = m.nodes[n].r
		}
	}
	return best, ok
}

// last returns the largest key.
func (m *mset) last() (int64, bool) {
	n := m.root
	if n < 0 {
		return 0, false
	}
	for m.nodes[n].r >= 0 {
		n = m.nodes[n].r
	}
	return m.nodes[n].key, true
}

func (m *mset) link(n int32) *treapLink { return &m.nodes[n].treapLink }

// pull does nothing: the multiset keeps no subtree aggregates.
func (m *mset) pull(int32) {}
