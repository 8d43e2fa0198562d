package slottable

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// span converts [from, to) to keys; an empty or inverted interval becomes
// the single instant from.
func span(from, to time.Time) (int64, int64) {
	f, e := toNS(from), toNS(to)
	if e <= f {
		e = addSat(f, 1)
	}
	return f, e
}

// Used returns, per dimension, the maximum usage of host h over
// [from, to); when to is not after from it is the usage at the instant
// from. It returns nil for an unknown host. Cost: O(log n).
func (t *Table) Used(h HostID, from, to time.Time) Resources {
	return t.UsedInto(nil, h, from, to)
}

// UsedInto is Used written into buf when it has room (a new vector
// otherwise), for callers that ask for many hosts in a row.
func (t *Table) UsedInto(buf Resources, h HostID, from, to time.Time) Resources {
	if !t.validHost(h) {
		return nil
	}
	f, e := span(from, to)
	var out Resources
	if cap(buf) >= t.Dims() {
		out = buf[:t.Dims()]
		clear(out)
	} else {
		out = make(Resources, t.Dims())
	}
	t.cp[h].maxUsage(f, e, out)
	return out
}

// Available returns capacity minus Used(h, from, to): what could still be
// reserved over the whole interval. Entries are negative only where the
// host is overcommitted. It returns nil for an unknown host.
func (t *Table) Available(h HostID, from, to time.Time) Resources {
	out := t.Used(h, from, to)
	for j := range out {
		out[j] = t.hosts[h].Capacity[j] - out[j]
	}
	return out
}

// FitCount returns how many VMs of size per fit on host h over the whole
// of [from, to) (the instant from when to is not after from): the minimum,
// over the dimensions where per is positive, of the free amount divided
// by per, rounded down and never below zero. It returns math.MaxInt32
// when per is all zero, and 0 for an unknown host or a per vector of the
// wrong length or with negative entries. Reservations for which ignore
// (when not nil) returns true are treated as absent; ignore must not
// modify the reservation's Res. Cost: O(log n) without ignore, otherwise
// O(log n + k log k) for the k reservations overlapping the interval.
func (t *Table) FitCount(h HostID, from, to time.Time, per Resources, ignore func(Reservation) bool) int {
	if !t.validHost(h) || t.checkRes(per) != nil || t.Closed(h) {
		return 0
	}
	f, e := span(from, to)
	used := make([]int64, t.Dims())
	t.usedIgnoring(h, f, e, ignore, used)
	return fitCount(t.hosts[h].Capacity, used, per, math.MaxInt32)
}

// FitCountAt is FitCount capped at limit, and writes to at (when it has
// room for every dimension) the host's usage at the instant from, both
// without the reservations ignore reports true for, and the hidden ones
// (SetHidden) too when skipHidden is set: one walk over the interval
// answers both. For a closed host or a bad per it is 0, and at is left as
// it was.
func (t *Table) FitCountAt(h HostID, from, to time.Time, per Resources, limit int, ignore func(Reservation) bool, skipHidden bool, at Resources) int {
	if !t.validHost(h) || t.checkRes(per) != nil || t.Closed(h) {
		return 0
	}
	f, e := span(from, to)
	w := getWalker()
	defer putWalker(w)
	w.initQuery(t, h, f, e, ignore, skipHidden)
	if len(at) >= len(w.usage) {
		copy(at, w.usage)
	}
	peak := slices.Grow(w.peak[:0], len(w.usage))[:len(w.usage)]
	copy(peak, w.usage)
	w.peak = peak
	for w.next() {
		for j, u := range w.usage {
			peak[j] = max(peak[j], u)
		}
	}
	return fitCount(t.hosts[h].Capacity, peak, per, limit)
}

// UsedIgnoring is Used with the reservations ignore reports true for
// treated as absent (ignore nil: all count). Unlike FitCount it answers
// for a closed host too. It returns nil for an unknown host. Cost:
// O(log n + k log k) for the k reservations overlapping the interval.
func (t *Table) UsedIgnoring(h HostID, from, to time.Time, ignore func(Reservation) bool) Resources {
	if !t.validHost(h) {
		return nil
	}
	f, e := span(from, to)
	out := make(Resources, t.Dims())
	t.usedIgnoring(h, f, e, ignore, out)
	return out
}

// fitCount is min over dims with per > 0 of floor((cap-used)/per),
// clamped to [0, limit].
func fitCount(capacity, used, per []int64, limit int) int {
	n := int64(limit)
	for j, p := range per {
		if p <= 0 {
			continue
		}
		free := capacity[j] - used[j]
		if free < p {
			return 0
		}
		n = min(n, free/p)
	}
	return int(n)
}

// usedIgnoring writes host h's maximum usage over [f, e) to out, treating
// the reservations ignore reports as absent.
func (t *Table) usedIgnoring(h HostID, f, e int64, ignore func(Reservation) bool, out []int64) {
	t.usedQuery(h, f, e, ignore, false, out)
}

// walker steps through host h's usage over [from, to), one change point
// at a time, optionally leaving out ignored reservations.
type walker struct {
	t     *Table
	p     *cpTree // the host's change points
	to    int64
	at    int64   // time of the current step
	usage []int64 // usage over [at, next change)
	it    cpIter  // the next change point
	ev    []event
	ei    int
	peak  []int64 // scratch for callers (FitCountAt)
}

// walkers recycles the walkers of usedIgnoring and FitCountAt (their
// slices were a sixth of a contended run's allocations).
var walkers = sync.Pool{New: func() any { return new(walker) }}

func getWalker() *walker { return walkers.Get().(*walker) }

func putWalker(w *walker) {
	w.t, w.p = nil, nil
	w.ev = w.ev[:0]
	walkers.Put(w)
}

// event is a change at a time, which sortEvents orders. A walker's
// undoes the delta of the reservation in slot k, left out: its usage is
// subtracted from its start (sign -(k+1)) and given back at its end
// (sign k+1). A sweep's (fitSweep.first) opens (sign > 0) or closes
// (sign < 0) a window of |sign| VMs. An event holds no pointer, so that
// sorting moves 16 bytes and no write barrier (while the collector
// marks) for each.
type event struct {
	at   int64
	sign int64
}

// init positions w at from, with usage the usage at from.
func (w *walker) init(t *Table, h HostID, from, to int64, ignore func(Reservation) bool) {
	w.t, w.to, w.at = t, to, from
	if cap(w.usage) >= t.Dims() {
		w.usage = w.usage[:t.Dims()]
		clear(w.usage)
	} else {
		w.usage = make([]int64, t.Dims())
	}
	w.p = &t.cp[h]
	w.it = w.p.seek(from, w.usage)
	w.ev, w.ei = w.ev[:0], 0
	if ignore == nil {
		return
	}
	t.it.visit(h, from, to, func(s int32) bool {
		if ignore(t.rs[s]) {
			w.leaveOut(s, from, to)
		}
		return true
	})
	sortEvents(w.ev)
}

// initSlots is init with an ignore that reports exactly the reservations
// in slots (of any host): those of host h overlapping [from, to) are left
// out without visiting the others. The deltas at one time are applied
// together, so the order they are found in does not matter.
func (w *walker) initSlots(t *Table, h HostID, from, to int64, slots []int32) {
	w.init(t, h, from, to, nil)
	for _, s := range slots {
		if nd := &t.it.nodes[s]; t.rs[s].Host == h && nd.end > from && nd.start < to {
			w.leaveOut(s, from, to)
		}
	}
	sortEvents(w.ev)
}

// sortEvents orders events by time. Most queries leave out a
// dozen reservations or fewer (a busy ch.3 run: 13 events on average over
// 575,000 sorts), a query amid many lazy plans a few hundred; a sort
// without a comparison function (insertion for short runs, quicksort
// above) orders them several times faster than slices.SortFunc. Events at
// the same time are applied together, so their order does not matter.
func sortEvents(ev []event) {
	for len(ev) > 24 {
		// Median of three as the pivot, then Hoare's partition.
		m := len(ev) / 2
		a, b, c := ev[0].at, ev[m].at, ev[len(ev)-1].at
		p := max(min(a, b), min(max(a, b), c))
		i, j := 0, len(ev)-1
		for {
			for ev[i].at < p {
				i++
			}
			for ev[j].at > p {
				j--
			}
			if i >= j {
				break
			}
			ev[i], ev[j] = ev[j], ev[i]
			i++
			j--
		}
		// [0, j] holds times <= p, (j, end) times >= p: sort the smaller
		// side by recursion, the larger in this loop.
		if j+1 < len(ev)-j-1 {
			sortEvents(ev[:j+1])
			ev = ev[j+1:]
		} else {
			sortEvents(ev[j+1:])
			ev = ev[:j+1]
		}
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].at >= ev[i-1].at {
			continue
		}
		e, j := ev[i], i
		for ; j > 0 && ev[j-1].at > e.at; j-- {
			ev[j] = ev[j-1]
		}
		ev[j] = e
	}
}

// leaveOut takes the reservation in slot s (overlapping [from, to)) out
// of the walk.
func (w *walker) leaveOut(s int32, from, to int64) {
	nd := &w.t.it.nodes[s]
	if nd.start <= from {
		for j, v := range w.t.rs[s].Res {
			w.usage[j] -= v
		}
	} else {
		w.ev = append(w.ev, event{at: nd.start, sign: -(int64(s) + 1)})
	}
	if nd.end < to {
		w.ev = append(w.ev, event{at: nd.end, sign: int64(s) + 1})
	}
}

// next advances to the next change point before to, applying every delta
// there; it returns false at the end.
func (w *walker) next() bool {
	p := w.p
	at := int64(posInf)
	if w.it.n >= 0 {
		at = p.key(w.it)
	}
	if w.ei < len(w.ev) {
		at = min(at, w.ev[w.ei].at)
	}
	if at >= w.to {
		return false
	}
	w.at = at
	if w.it.n >= 0 && p.key(w.it) == at {
		for j, v := range p.step(&w.it) {
			w.usage[j] += v
		}
	}
	for ; w.ei < len(w.ev) && w.ev[w.ei].at == at; w.ei++ {
		if k := w.ev[w.ei].sign; k < 0 {
			for j, v := range w.t.rs[-k-1].Res {
				w.usage[j] -= v
			}
		} else {
			for j, v := range w.t.rs[k-1].Res {
				w.usage[j] += v
			}
		}
	}
	return true
}

// checkFits returns ErrOverCapacity if adding res over [s, e) would put
// host h over capacity in a dimension where res is positive.
func (t *Table) checkFits(h HostID, s, e int64, res Resources) error {
	used := make([]int64, t.Dims())
	t.cp[h].maxUsage(s, e, used)
	capy := t.hosts[h].Capacity
	for j, v := range res {
		if v > 0 && used[j]+v > capy[j] {
			return t.overError(h, s, e, j, v)
		}
	}
	return nil
}

// overError builds the ErrOverCapacity for dimension j of host h, naming
// the first time in [s, e) where usage plus extra exceeds capacity.
func (t *Table) overError(h HostID, s, e int64, j int, extra int64) error {
	var w walker
	w.init(t, h, s, e, nil)
	capy := t.hosts[h].Capacity[j]
	for w.usage[j]+extra <= capy && w.next() {
	}
	return fmt.Errorf("%w: host %q at %v: %s %d > capacity %d", ErrOverCapacity,
		t.hosts[h].Name, fromNS(w.at, time.UTC), t.names[j], w.usage[j]+extra, capy)
}

// ChangePoints returns the distinct times in [from, to) at which the usage
// of some host changes, in increasing order (in from's location).
func (t *Table) ChangePoints(from, to time.Time) []time.Time {
	var out []time.Time
	loc := from.Location()
	t.ms.ascend(toNS(from), toNS(to), func(k int64) {
		out = append(out, fromNS(k, loc))
	})
	return out
}

// NextChangeAfter returns the first time after t at which the usage of
// some host changes.
func (t *Table) NextChangeAfter(after time.Time) (time.Time, bool) {
	k, ok := t.ms.after(toNS(after))
	if !ok {
		return time.Time{}, false
	}
	return fromNS(k, after.Location()), true
}

// ChangesBetween counts the times NextChangeAfter can give strictly
// between a and b: the change points of every host's usage in (a, b).
// Cost: O(log n + k) for k of them.
func (t *Table) ChangesBetween(a, b time.Time) int {
	lo, hi := toNS(a), toNS(b)
	if lo == posInf || hi <= lo+1 {
		return 0
	}
	n := 0
	t.ms.ascend(lo+1, hi, func(int64) { n++ })
	return n
}

// ReservationsOn returns host h's reservations that overlap [from, to),
// ordered by start then ID. Cost: O(log n + k) for k results.
func (t *Table) ReservationsOn(h HostID, from, to time.Time) []Reservation {
	if !t.validHost(h) {
		return nil
	}
	return t.appendOn(nil, h, toNS(from), toNS(to))
}

func (t *Table) appendOn(out []Reservation, h HostID, f, e int64) []Reservation {
	t.it.visit(h, f, e, func(s int32) bool {
		out = append(out, t.copyOut(s))
		return true
	})
	return out
}

// Overlapping returns every reservation that overlaps [from, to), ordered
// by host, then start, then ID.
func (t *Table) Overlapping(from, to time.Time) []Reservation {
	f, e := toNS(from), toNS(to)
	var out []Reservation
	for h := range t.hosts {
		out = t.appendOn(out, HostID(h), f, e)
	}
	return out
}

// EachOverlapping calls fn with every reservation that overlaps
// [from, to), in Overlapping's order, without copying them out: r.Res is
// the table's own, which fn must neither change nor keep. It is
// Overlapping for callers that only look (the scheduler's preemption
// candidates), and allocates nothing.
func (t *Table) EachOverlapping(from, to time.Time, fn func(r Reservation)) {
	f, e := toNS(from), toNS(to)
	for h := range t.hosts {
		t.eachOn(HostID(h), f, e, fn)
	}
}

// EachOverlappingOn is EachOverlapping on host h alone (nothing when h
// is unknown): a caller that asks about a placement's hosts reads only
// their trees, not the whole cluster's.
func (t *Table) EachOverlappingOn(h HostID, from, to time.Time, fn func(r Reservation)) {
	if t.validHost(h) {
		t.eachOn(h, toNS(from), toNS(to), fn)
	}
}

// eachOn calls fn with host h's reservations overlapping [f, e).
func (t *Table) eachOn(h HostID, f, e int64, fn func(r Reservation)) {
	t.it.visit(h, f, e, func(s int32) bool {
		fn(t.rs[s])
		return true
	})
}

// LatestEnd returns the latest end of host h's reservations, or the zero
// time if it has none (or h is unknown).
func (t *Table) LatestEnd(h HostID) time.Time {
	if !t.validHost(h) {
		return time.Time{}
	}
	// The tree's latest end; return it as the reservation holding it
	// gave it.
	want, ok := t.it.latestEnd(h)
	if !ok {
		return time.Time{}
	}
	var best time.Time
	t.it.visit(h, want-1, posInf, func(s int32) bool {
		best = t.rs[s].End
		return false
	})
	return best
}
