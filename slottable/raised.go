package slottable

import "slices"

// The history of raised usage completes the history of freed capacity
// (freed.go): every interval where a host's usage went up (a reservation
// added or lengthened) or its room went down everywhere (closed, or its
// capacity lowered). With both, a memo can tell that nothing at all
// changed over an interval since its answer, so that the counts it gave
// at its start still hold (FitMemo.Since).

// raisedEntry is an interval where host's usage went up because of a
// reservation of lease (all: the host lost room everywhere, whoever the
// lease).
type raisedEntry struct {
	seq   uint64
	lease uint64
	host  HostID
	s, e  int64
	all   bool
}

// logRaised records that host h's usage went up over [s, e) because of
// a reservation of lease (all: the host lost room everywhere).
func (t *Table) logRaised(lease uint64, h HostID, s, e int64, all bool) {
	f := &t.freed
	if !f.on {
		return
	}
	if len(f.rais) >= maxFreed {
		t.ForgetFreed(f.next)
	}
	f.rais = append(f.rais, raisedEntry{seq: f.next, lease: lease, host: h, s: s, e: e, all: all})
	f.next++
}

// forgetRaised drops the raised entries before mark.
func (f *freedLog) forgetRaised(mark uint64) {
	n, _ := slices.BinarySearchFunc(f.rais, mark, func(e raisedEntry, s uint64) int { return cmpUint64(e.seq, s) })
	f.rais = slices.Delete(f.rais, 0, n)
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// changedSince reports whether, since mark, any host's usage or room
// changed over an interval overlapping [s, e) other than by lease's own
// reservations: whether the table without lease's reservations may
// differ there from what it was at mark. It is true when the history
// before mark is forgotten.
func (t *Table) changedSince(mark, lease uint64, s, e int64) bool {
	f := &t.freed
	if !f.on || mark < f.base {
		return true
	}
	for _, x := range f.ents[f.index(mark):] {
		if !x.void && (x.lease != lease || x.res == nil) && x.s < e && s < x.e {
			return true
		}
	}
	i, _ := slices.BinarySearchFunc(f.rais, mark, func(x raisedEntry, s uint64) int { return cmpUint64(x.seq, s) })
	for _, x := range f.rais[i:] {
		if (x.all || x.lease != lease) && x.s < e && s < x.e {
			return true
		}
	}
	return false
}
