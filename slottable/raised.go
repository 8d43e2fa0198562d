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
//
// An entry and a later one of the other history that undo each other
// exactly cancel out for a mark that sees both (changedSince): readds is
// 1 + the sequence number of the removal an Add of an identical
// reservation cancels (readded: that removal is void), 0 for none; gone
// says that the reservation added was removed since by a removal not
// cancelled in turn, whose entry pairs with this one (raiseGone).
type raisedEntry struct {
	seq    uint64
	lease  uint64
	host   HostID
	s, e   int64
	all    bool
	readds uint64
	gone   bool
}

// logRaised records that host h's usage went up over [s, e) because of
// a reservation of lease (all: the host lost room everywhere); readds is
// raisedEntry's. It returns 1 + the entry's sequence number, 0 when the
// history is off.
func (t *Table) logRaised(lease uint64, h HostID, s, e int64, all bool, readds uint64) uint64 {
	f := &t.freed
	if !f.on {
		return 0
	}
	if len(f.rais) >= maxFreed {
		t.ForgetFreed(f.next)
	}
	f.rais = append(f.rais, raisedEntry{seq: f.next, lease: lease, host: h, s: s, e: e, all: all, readds: readds})
	f.rblock(f.next).include(&f.rais[len(f.rais)-1])
	f.next++
	return f.next
}

// raisedIndex is the position of the first raised entry with a sequence
// number >= seq.
func (f *freedLog) raisedIndex(seq uint64) int {
	return seqIndex(f.rais, seq, raisedSeq)
}

// raisedAt returns the raised entry with sequence number seq, or nil when
// there is none (forgotten).
func (f *freedLog) raisedAt(seq uint64) *raisedEntry {
	i := seqIndex(f.rais, seq, raisedSeq)
	if i == len(f.rais) || f.rais[i].seq != seq {
		return nil
	}
	return &f.rais[i]
}

// raiseGone marks the raised entry of the reservation in slot, which is
// being removed, as gone, and returns the marks [lo, hi) for which the
// removal's entry cancels it: those that see the raise (hi is 1 + its
// sequence number) and for which it does not cancel an earlier removal
// already (from its readds on). Both are 0 when it is forgotten.
func (t *Table) raiseGone(slot int32) (lo, hi uint64) {
	f := &t.freed
	r1 := t.raised[slot]
	if !f.on || r1 == 0 {
		return 0, 0
	}
	x := f.raisedAt(r1 - 1)
	if x == nil {
		return 0, 0
	}
	f.setGone(x, true)
	return x.readds, r1
}

// forgetRaised drops the raised entries before mark.
func (f *freedLog) forgetRaised(mark uint64) {
	n := seqIndex(f.rais, mark, raisedSeq)
	f.rais = slices.Delete(f.rais, 0, n)
}

// changedSince reports whether, since mark, any host's usage or room
// changed over an interval overlapping [s, e) other than by lease's own
// reservations: whether the table without lease's reservations may
// differ there from what it was at mark. It is true when the history
// before mark is forgotten.
//
// Entries that cancel out for mark are left out: a removal made void by
// the Add of an identical reservation, with that Add's raised entry when
// the removal is after mark (after a fixed lease, the queued leases ahead
// of a lease are removed and added back as they were); and a reservation's
// Add with its removal when both are after mark (the leases behind it,
// added after its memo and removed at the next fixed lease). What is
// left of a reservation changed in between (SetEnd) is logged, and
// counted, on its own.
func (t *Table) changedSince(mark, lease uint64, s, e int64) bool {
	f := &t.freed
	if !f.on || mark < f.base {
		return true
	}
	for i, end := f.index(mark), 0; i < len(f.ents); i++ {
		if i >= end {
			if end = f.blockEnd(i); f.skippable(i, end, mark, false, s, e) {
				i = end - 1
				continue
			}
		}
		x := &f.ents[i]
		if x.void || x.pairHi != 0 && x.pairLo <= mark && mark < x.pairHi {
			continue
		}
		if (x.lease != lease || x.res == nil) && x.s < e && s < x.e {
			return true
		}
	}
	i := seqIndex(f.rais, mark, raisedSeq)
	for j, end := i, 0; j < len(f.rais); j++ {
		if j >= end {
			if end = f.rblockEnd(j); f.rskippable(j, end, mark, s, e) {
				j = end - 1
				continue
			}
		}
		x := &f.rais[j]
		if x.gone || mark < x.readds {
			continue
		}
		if (x.all || x.lease != lease) && x.s < e && s < x.e {
			return true
		}
	}
	return false
}

// failedRange says that on the table as it was when it was noted, at no
// start in [a, b] did more than most VMs of per fit for d, even without
// the reservations of the lease that asked. It holds on the table as it
// is as long as no usage went down over [a, b+d) since (logFreed drops
// it then): elsewhere usage rising only fits fewer.
type failedRange struct {
	most int
	per  Resources
	d    int64
	a, b int64
}

// maxFailed bounds the failed ranges remembered.
const maxFailed = 16

// skipFailed returns the first start from a on (up to b) that the failed
// ranges remembered (and still holding) do not rule out for q (duration
// d), on behalf of a lease whose own reservations start no earlier than
// lim. A range failed by a query whose VMs are none larger and no longer
// than q's, and where fewer than q.N of them fitted at every start, rules
// out its starts t with t+d <= lim: there the table without the lease's
// reservations is the table itself over [t, t+d), which holds at least
// what the table without the other lease's did, so no more of q's VMs
// fit than of the other query's, fewer than q.N. (A query that failed
// for no more VMs than q.N is one: fewer than its N fitted.)
func (t *Table) skipFailed(q *Query, d, a, b, lim int64) int64 {
	if len(t.freed.fails) == 0 {
		return a
	}
	var buf [maxFailed]failedRange
	return skipIn(t.failsFor(q, d, buf[:0]), d, a, b, lim)
}

// failsFor appends to buf the failed ranges that can rule out starts for
// q (duration d) and returns it, ordered by the ranges' first starts:
// skipFailed's conditions on the query alone, checked once for the hosts
// of a scan (freedStarts).
func (t *Table) failsFor(q *Query, d int64, buf []failedRange) []failedRange {
	for _, x := range t.freed.fails {
		if x.most < q.N && x.d <= d && dominated(x.per, q.Per) {
			// Insertion by a: at most maxFailed of them.
			i := len(buf)
			buf = append(buf, x)
			for ; i > 0 && buf[i-1].a > x.a; i-- {
				buf[i] = buf[i-1]
			}
			buf[i] = x
		}
	}
	return buf
}

// skipIn is skipFailed with the failed ranges that apply (failsFor): the
// first start from a on that no range [x.a, min(x.b, top)] holds. Taken
// in order of their first starts, one pass finds it: once a range begins
// after a, so do all the rest; and one passed over because it ends before
// a stays behind it, since a only grows.
func skipIn(fails []failedRange, d, a, b, lim int64) int64 {
	if len(fails) == 0 {
		return a
	}
	top := b
	if lim != posInf {
		top = min(top, lim-d)
	}
	for i := range fails {
		x := &fails[i]
		if x.a > a {
			break
		}
		if cut := min(x.b, top); a <= cut {
			a = cut + 1
		}
	}
	return a
}

// dominated reports whether every entry of small is at most big's.
func dominated(small, big Resources) bool {
	if len(small) != len(big) {
		return false
	}
	for j := range small {
		if small[j] > big[j] {
			return false
		}
	}
	return true
}

// noteFailed remembers that at no start in [a, b] do more than most
// (less than q.N) of q's VMs fit for d without the asking lease's
// reservations, on the table as it is now.
func (t *Table) noteFailed(q *Query, d, a, b int64, most int) {
	f := &t.freed
	if len(f.fails) == maxFailed {
		f.fails = slices.Delete(f.fails, 0, 1)
	}
	// The VM sizes are few (noteBefore notes after most searches): share
	// a copy another failure already holds (none changes it).
	var per Resources
	for _, x := range f.fails {
		if slices.Equal(x.per, q.Per) {
			per = x.per
			break
		}
	}
	if per == nil {
		per = slices.Clone(q.Per)
	}
	f.fails = append(f.fails, failedRange{most: most, per: per, d: d, a: a, b: b})
}

// ownStart is the earliest start of lease's reservations in the table
// (posInf when it has none).
func (t *Table) ownStart(lease uint64) int64 { return t.ownHeld(lease, nil) }

// ownHeld is ownStart, adding to held (when not nil) what lease's
// reservations hold, all of them together.
func (t *Table) ownHeld(lease uint64, held []int64) int64 {
	s := int64(posInf)
	for _, slot := range t.slotsOf(lease) {
		s = min(s, t.it.nodes[slot].start)
		if held != nil {
			for k, x := range t.rs[slot].Res {
				held[k] += x
			}
		}
	}
	return s
}

// dropFailed forgets the failed ranges that usage freed over [s, e) may
// no longer hold for: those whose starts' windows overlap it.
func (f *freedLog) dropFailed(s, e int64) {
	f.fails = slices.DeleteFunc(f.fails, func(x failedRange) bool {
		return s < addSat(x.b, x.d) && x.a < e
	})
}
