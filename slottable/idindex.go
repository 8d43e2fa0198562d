package slottable

// idIndex maps reservation IDs to their slots: an open-addressing hash
// table with linear probing, specialised for the table's keys (IDs are
// never 0, which marks an empty entry, and come in sequence, which the
// multiplicative hash spreads). Add, Remove and Renumber each ask it one
// to three times; a Go map was a third of Renumber's time.
type idIndex struct {
	keys  []ResID
	vals  []int32
	n     int
	shift uint // 64 - log2(len(keys))
}

// minIDIndex is the smallest number of entries.
const minIDIndex = 16

// home is where key k's probe starts.
func (x *idIndex) home(k ResID) int {
	return int((uint64(k) * 0x9E3779B97F4A7C15) >> x.shift)
}

// get returns k's slot.
func (x *idIndex) get(k ResID) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := len(x.keys) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		switch x.keys[i] {
		case k:
			return x.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// set maps k (not 0) to v.
func (x *idIndex) set(k ResID, v int32) {
	if overLoaded(x.n+1, len(x.keys)) {
		x.grow()
	}
	mask := len(x.keys) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		switch x.keys[i] {
		case k:
			x.vals[i] = v
			return
		case 0:
			x.keys[i], x.vals[i] = k, v
			x.n++
			return
		}
	}
}

// del removes k, if there, moving the entries after it back so that no
// probe sequence has a hole.
func (x *idIndex) del(k ResID) {
	if x.n == 0 {
		return
	}
	mask := len(x.keys) - 1
	i := x.home(k)
	for ; x.keys[i] != k; i = (i + 1) & mask {
		if x.keys[i] == 0 {
			return
		}
	}
	for j := (i + 1) & mask; x.keys[j] != 0; j = (j + 1) & mask {
		if probeMayFill(x.home(x.keys[j]), i, j) {
			x.keys[i], x.vals[i] = x.keys[j], x.vals[j]
			i = j
		}
	}
	x.keys[i], x.vals[i] = 0, 0
	x.n--
}

// overLoaded reports whether n keys in a linear-probing table of size
// slots fill more than three quarters of it (then it grows).
func overLoaded(n, size int) bool { return 4*n > 3*size }

// grow doubles the room (or makes the first).
func (x *idIndex) grow() {
	keys, vals := x.keys, x.vals
	size := max(minIDIndex, 2*len(keys))
	x.keys, x.vals, x.n = make([]ResID, size), make([]int32, size), 0
	x.shift = 64
	for s := size; s > 1; s >>= 1 {
		x.shift--
	}
	for i, k := range keys {
		if k != 0 {
			x.set(k, vals[i])
		}
	}
}

// len is the number of IDs.
func (x *idIndex) len() int { return x.n }

// each calls fn for every ID and its slot, in no order.
func (x *idIndex) each(fn func(ResID, int32)) {
	for i, k := range x.keys {
		if k != 0 {
			fn(k, x.vals[i])
		}
	}
}

// cloneInto returns an independent copy, in the memory of dst (a copy not
// used again; the zero value: new memory).
func (x *idIndex) cloneInto(dst idIndex) idIndex {
	return idIndex{keys: append(dst.keys[:0], x.keys...), vals: append(dst.vals[:0], x.vals...), n: x.n, shift: x.shift}
}
