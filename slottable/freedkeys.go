package slottable

// freedKeys maps a removed reservation's key (lease, host, interval) to
// the sequence number of its latest removal entry, for readded to find
// that entry when the same reservation is added again: an open-addressing
// hash table with linear probing, as idIndex. A Go map keyed by the
// 32-byte struct hashed it with the generic hash and was 4 % of the
// 30-day runs under energy management (logFreed, readded, ForgetFreed).
type freedKeys struct {
	slots []freedSlot
	n     int
	shift uint // 64 - log2(len(slots))
}

// freedSlot is one entry of freedKeys; seq1 is 1 + the sequence number,
// 0 for an empty slot.
type freedSlot struct {
	k    freedKey
	seq1 uint64
}

// home is where key k's probe starts: its fields mixed (each spread by
// an odd multiplier, then the whole by a finaliser), top bits taken.
func (x *freedKeys) home(k freedKey) int {
	h := k.lease*0x9E3779B97F4A7C15 ^ uint64(k.host)*0xC2B2AE3D27D4EB4F ^
		uint64(k.s)*0x165667B19E3779F9 ^ uint64(k.e)*0xD6E8FEB86659FD93
	h ^= h >> 32
	h *= 0xBF58476D1CE4E5B9
	return int(h >> x.shift)
}

// find returns the slot holding k, or -1.
func (x *freedKeys) find(k freedKey) int {
	if x.n == 0 {
		return -1
	}
	mask := len(x.slots) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		switch s := &x.slots[i]; {
		case s.seq1 == 0:
			return -1
		case s.k == k:
			return i
		}
	}
}

// set maps k to seq.
func (x *freedKeys) set(k freedKey, seq uint64) {
	if overLoaded(x.n+1, len(x.slots)) {
		x.grow()
	}
	mask := len(x.slots) - 1
	i := x.home(k)
	for x.slots[i].seq1 != 0 && x.slots[i].k != k {
		i = (i + 1) & mask
	}
	if x.slots[i].seq1 == 0 {
		x.n++
	}
	x.slots[i] = freedSlot{k: k, seq1: seq + 1}
}

// takeBefore removes k when it maps to a sequence number below limit
// and returns that number: one probe where get and del would make two.
func (x *freedKeys) takeBefore(k freedKey, limit uint64) (uint64, bool) {
	i := x.find(k)
	if i < 0 || x.slots[i].seq1-1 >= limit {
		return 0, false
	}
	seq := x.slots[i].seq1 - 1
	x.delAt(i)
	return seq, true
}

// delAt empties slot i, moving the slots after it back so that no probe
// sequence has a hole.
func (x *freedKeys) delAt(i int) {
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j].seq1 != 0; j = (j + 1) & mask {
		if probeMayFill(x.home(x.slots[j].k), i, j) {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = freedSlot{}
	x.n--
}

// probeMayFill reports whether the entry at slot j of a linear-probing
// table, whose probe started at home, may move back to a hole at slot i:
// unless home lies in (i, j], cyclically.
func probeMayFill(home, i, j int) bool {
	return i <= j && (home <= i || home > j) || i > j && home <= i && home > j
}

// grow doubles the room (or makes the first).
func (x *freedKeys) grow() {
	x.resize(max(minIDIndex, 2*len(x.slots)))
}

// shrink makes the room smaller when the keys fill less than a sixteenth
// of it, to a quarter full. The history is forgotten after each re-plan
// and holds a few thousand keys most of the time, but the room stayed
// as large as the longest history had needed (65,536 slots, 2.6 MB, in
// the 30-day run under energy management), so that each probe of a
// removal or an addition missed the cache.
func (x *freedKeys) shrink() {
	if len(x.slots) <= minIDIndex || 16*x.n >= len(x.slots) {
		return
	}
	size := minIDIndex
	for size < 4*x.n {
		size *= 2
	}
	x.resize(size)
}

// resize moves the keys to a room of size slots (a power of two, more
// than the keys).
func (x *freedKeys) resize(size int) {
	old := x.slots
	x.slots, x.n, x.shift = make([]freedSlot, size), 0, 64
	for s := size; s > 1; s >>= 1 {
		x.shift--
	}
	for _, s := range old {
		if s.seq1 != 0 {
			x.set(s.k, s.seq1-1)
		}
	}
}

// len is the number of keys.
func (x *freedKeys) len() int { return x.n }
