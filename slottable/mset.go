package slottable

import "slices"

// msEntry is a time of the global multiset of change points and the
// number of hosts with a change point there.
type msEntry struct {
	key int64
	cnt int32
}

// msBlockMax is the most entries a block of the multiset holds (4 KB):
// full, it is split in two halves.
const msBlockMax = 256

// mset is an ordered multiset of times, the union of every host's change
// points. It is a sorted array of sorted blocks, each of 1 to
// msBlockMax entries, with the first key of every block beside them:
// finding a key is a binary search over the first keys, then one within
// a block. With a million reservations it holds about two million
// times; a balanced tree over them was 30 to 40 nodes deep, each a cache
// miss, while here the first keys (a sixteenth of a megabyte per million
// times) stay in the cache and a block is a few lines of it.
type mset struct {
	blocks [][]msEntry
	firsts []int64 // firsts[i] == blocks[i][0].key
}

// clone copies the multiset into one allocation: each block gets the
// room of a full one there (a dry run clones the table for every
// request it tries).
func (m *mset) clone() mset {
	c := mset{blocks: make([][]msEntry, len(m.blocks)), firsts: slices.Clone(m.firsts)}
	room := make([]msEntry, len(m.blocks)*msBlockMax)
	for i, b := range m.blocks {
		o := i * msBlockMax
		c.blocks[i] = append(room[o:o:o+msBlockMax], b...)
	}
	return c
}

// block returns the index of the block where key is or would go: the
// last whose first key is at most key (0 when there is none).
func (m *mset) block(key int64) int {
	f := m.firsts
	lo, hi := 0, len(f) // the first block whose first key is after key is in [lo, hi]
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if f[h] <= key {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return max(lo-1, 0)
}

// pos returns where key is or would go in block b, and whether it is
// there. (Written out: slices.BinarySearchFunc's call of a comparison
// function for every probe was a tenth of an insert's time.)
func pos(b []msEntry, key int64) (int, bool) {
	lo, hi := 0, len(b)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if b[h].key < key {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(b) && b[lo].key == key
}

// inc adds one occurrence of key.
func (m *mset) inc(key int64) {
	if len(m.blocks) == 0 {
		m.blocks = append(m.blocks, append(make([]msEntry, 0, msBlockMax), msEntry{key, 1}))
		m.firsts = append(m.firsts, key)
		return
	}
	i := m.block(key)
	b := m.blocks[i]
	j, ok := pos(b, key)
	if ok {
		b[j].cnt++
		return
	}
	b = slices.Insert(b, j, msEntry{key, 1})
	m.blocks[i], m.firsts[i] = b, b[0].key
	if len(b) < msBlockMax {
		return
	}
	half := len(b) / 2
	nb := append(make([]msEntry, 0, msBlockMax), b[half:]...)
	m.blocks[i] = b[:half]
	m.blocks = slices.Insert(m.blocks, i+1, nb)
	m.firsts = slices.Insert(m.firsts, i+1, nb[0].key)
}

// dec removes one occurrence of key (which must be present).
func (m *mset) dec(key int64) {
	if len(m.blocks) == 0 {
		return
	}
	i := m.block(key)
	b := m.blocks[i]
	j, ok := pos(b, key)
	if !ok {
		return
	}
	if b[j].cnt--; b[j].cnt > 0 {
		return
	}
	b = slices.Delete(b, j, j+1)
	m.blocks[i] = b
	if len(b) == 0 {
		m.blocks = slices.Delete(m.blocks, i, i+1)
		m.firsts = slices.Delete(m.firsts, i, i+1)
		return
	}
	m.firsts[i] = b[0].key
	// A block and the next that fit in half a block together become one,
	// so that the blocks stay at least a quarter full on average.
	if i+1 < len(m.blocks) && len(b)+len(m.blocks[i+1]) <= msBlockMax/2 {
		m.blocks[i] = append(b, m.blocks[i+1]...)
		m.blocks = slices.Delete(m.blocks, i+1, i+2)
		m.firsts = slices.Delete(m.firsts, i+1, i+2)
	}
}

// ascend calls fn on the keys in [lo, hi) in increasing order.
func (m *mset) ascend(lo, hi int64, fn func(key int64)) {
	if len(m.blocks) == 0 || lo >= hi {
		return
	}
	i := m.block(lo)
	j, _ := pos(m.blocks[i], lo)
	for ; i < len(m.blocks); i, j = i+1, 0 {
		for _, e := range m.blocks[i][j:] {
			if e.key >= hi {
				return
			}
			fn(e.key)
		}
	}
}

// after returns the smallest key > t.
func (m *mset) after(t int64) (int64, bool) {
	if len(m.blocks) == 0 {
		return 0, false
	}
	i := m.block(t)
	b := m.blocks[i]
	j, ok := pos(b, t)
	if ok {
		j++
	}
	if j < len(b) {
		return b[j].key, true
	}
	if i+1 < len(m.blocks) {
		return m.firsts[i+1], true
	}
	return 0, false
}

// last returns the largest key.
func (m *mset) last() (int64, bool) {
	if len(m.blocks) == 0 {
		return 0, false
	}
	b := m.blocks[len(m.blocks)-1]
	return b[len(b)-1].key, true
}

// checkBlocks checks the layout: as many first keys as blocks, each
// block of 1 to msBlockMax-1 entries whose first key is its first
// entry's, and every block's keys after the previous block's.
func (m *mset) checkBlocks() error {
	if len(m.firsts) != len(m.blocks) {
		return corrupt("change-point multiset has %d first keys for %d blocks", len(m.firsts), len(m.blocks))
	}
	for i, b := range m.blocks {
		if len(b) == 0 || len(b) >= msBlockMax || m.firsts[i] != b[0].key ||
			i > 0 && m.blocks[i-1][len(m.blocks[i-1])-1].key >= b[0].key {
			return corrupt("change-point multiset block %d of %d: %d entries, first key %d", i, len(m.blocks), len(b), m.firsts[i])
		}
	}
	return nil
}

// each calls fn on every distinct key in increasing order with its count.
func (m *mset) each(fn func(key int64, cnt int32)) {
	for _, b := range m.blocks {
		for _, e := range b {
			fn(e.key, e.cnt)
		}
	}
}
