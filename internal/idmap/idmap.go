package idmap

import (
	"maps"
	"slices"
)

// Map maps uint64 IDs to values of V. The zero Map is empty.
type Map[V any] struct {
	vals []V
	has  []bool
	far  map[uint64]V
	// held lists the IDs the slice holds, in no order, and at gives each
	// one's place in it (for the others it is stale): a copy (CloneInto)
	// copies their values alone, not an entry for every ID ever set. In
	// the slot table's index of leases a few leases held for long keep
	// the lowest held ID far back (at 24,000 leases, 141 held of 15,000
	// IDs at a copy, the lowest about 500), and the lowest one is often
	// deleted and set again as its lease is planned again. The values of
	// the IDs not held are not read: a copy made in reused memory may
	// hold stale ones there.
	held []uint64
	at   []int32
}

// slack is how far past the slice's end, beyond its own length, an ID
// may be and still grow it.
const slack = 4096

// Get returns id's value and whether it has one (the zero value when
// not).
func (m *Map[V]) Get(id uint64) (V, bool) {
	if id < uint64(len(m.vals)) {
		if m.has[id] {
			return m.vals[id], true
		}
		var zero V
		return zero, false
	}
	v, ok := m.far[id] // a nil map has none
	return v, ok
}

// Set gives id the value v.
func (m *Map[V]) Set(id uint64, v V) {
	n := uint64(len(m.vals))
	switch {
	case id < n:
	case id-n < slack+n:
		m.vals = append(m.vals, make([]V, id+1-n)...)
		m.has = append(m.has, make([]bool, id+1-n)...)
		m.at = append(m.at, make([]int32, id+1-n)...)
		for k, f := range m.far { // those held far until now
			if k <= id {
				m.vals[k] = f
				m.hold(k)
				delete(m.far, k)
			}
		}
	default:
		if m.far == nil {
			m.far = map[uint64]V{}
		}
		m.far[id] = v
		return
	}
	m.vals[id] = v
	m.hold(id)
}

// hold marks id, in the slice, as held.
func (m *Map[V]) hold(id uint64) {
	if m.has[id] {
		return
	}
	m.has[id], m.at[id] = true, int32(len(m.held))
	m.held = append(m.held, id)
}

// Delete removes id's value, if it has one.
func (m *Map[V]) Delete(id uint64) {
	if id < uint64(len(m.vals)) {
		if !m.has[id] {
			return
		}
		var zero V
		m.vals[id], m.has[id] = zero, false
		// The last held ID takes id's place in the list.
		i, last := m.at[id], m.held[len(m.held)-1]
		m.held[i], m.at[last] = last, i
		m.held = m.held[:len(m.held)-1]
		return
	}
	delete(m.far, id)
}

// Range calls f with every ID that has a value, and the value, in ID
// order. f must not change m.
func (m *Map[V]) Range(f func(id uint64, v V)) {
	for id, v := range m.vals {
		if m.has[id] {
			f(uint64(id), v)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(m.far)) {
		f(id, m.far[id])
	}
}

// Clone returns a copy of m holding clone(v) for each value v.
func (m *Map[V]) Clone(clone func(V) V) Map[V] {
	return m.CloneInto(Map[V]{}, func(_, v V) V { return clone(v) })
}

// CloneInto is Clone in the memory of dst, a copy not used again (the
// zero Map: new memory): clone(old, v) returns the copy of v, made in old
// when it can (old is dst's value for the same ID, or the zero value).
func (m *Map[V]) CloneInto(dst Map[V], clone func(old, v V) V) Map[V] {
	n := len(m.vals)
	vals := dst.vals
	if cap(vals) < n {
		vals = append(vals[:cap(vals)], make([]V, n-cap(vals))...)
	}
	vals = vals[:n]
	var zero V
	for _, id := range m.held {
		vals[id] = clone(vals[id], m.vals[id])
	}
	c := Map[V]{vals: vals, has: append(dst.has[:0], m.has...),
		held: append(dst.held[:0], m.held...), at: append(dst.at[:0], m.at...)}
	if m.far != nil {
		c.far = make(map[uint64]V, len(m.far))
		for id, v := range m.far {
			c.far[id] = clone(zero, v)
		}
	}
	return c
}
