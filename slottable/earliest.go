package slottable

import (
	"slices"
	"sync"
)

// EarliestFit returns the earliest start t >= q.From (and <= q.Until when
// Until is not zero) at which q.N VMs of size q.Per fit for q.Duration on
// the hosts q.Hosts allows, counting how many fit on each host as
// FitCount(h, t, t+Duration, Per, Ignore) does. The Fit lists every
// allowed host with room for at least one VM, in ID order, with its count
// capped at q.N. It returns false when there is no such time: when the
// allowed hosts together can never hold N VMs, when Until passes first,
// or when Per has the wrong length or a negative entry. A Duration below
// one nanosecond is taken as one (the fit is checked at the instant t).
// N <= 0 fits at From with no hosts.
//
// The candidate starts are From and the change points after it. The
// search walks each allowed host's change points forward from From up to
// a horizon (doubling it until the answer is found or no change points
// remain), turns the step function of how many VMs fit into, per level
// k, the maximal intervals where at least k fit, turns those into the
// windows of start times at which the host can hold one more VM for the
// whole duration, and sweeps the windows in time order to the first
// moment their total reaches N.
func (t *Table) EarliestFit(q Query) (Fit, bool) {
	fit, ok, _ := t.earliestFit(q)
	return fit, ok
}

// earliestFit is EarliestFit; it also returns the most VMs that fit
// together at any start the query allows before the answer's (at any
// start when there is none): less than q.N, for noteFailed.
func (t *Table) earliestFit(q Query) (fit Fit, found bool, most int) {
	if t.checkRes(q.Per) != nil {
		return Fit{}, false, max(q.N-1, 0)
	}
	from, until := toNS(q.From), untilNS(&q)
	if until < from {
		return Fit{}, false, 0
	}
	if q.N <= 0 {
		return Fit{Start: q.From}, true, 0
	}
	if until == from {
		// Counted, not swept: the most is only a bound. The room the
		// hosts share at the instant answers most of these no
		// (instant.go).
		if t.noRoomAt(&q, from) {
			return Fit{}, false, q.N - 1
		}
		s := getSweep(t, &q)
		defer putSweep(s)
		if fit, ok := s.only(from); ok {
			return fit, true, 0 // no start before it
		}
		return Fit{}, false, q.N - 1
	}
	// The sweep begins where the open hosts' usage added up first leaves
	// room (cluster.go); the most before it is then only a bound.
	if a, ok := t.clusterFrom(&q, from, until); !ok {
		return Fit{}, false, q.N - 1
	} else if a > from {
		q.From, from = fromNS(a, q.From.Location()), a
		defer func() { most = q.N - 1 }()
	}
	s := getSweep(t, &q)
	defer putSweep(s)
	hosts := t.fitHosts(q, s)
	if hosts == nil {
		return Fit{}, false, s.room
	}
	s.from, s.d = from, max(int64(q.Duration), 1)
	last, any := t.ms.last()
	for width := 2 * s.d; ; width = grow(width) {
		// No start after until is wanted, and a start t needs the profile
		// only up to t+d: walking past until+d cannot change the answer
		// (the windows closed at the horizon are exact up to horizon-d).
		horizon := min(addSat(addSat(from, s.d), width), addSat(until, s.d))
		final := !any || horizon > last || horizon == posInf
		if final {
			horizon = posInf
		}
		s.win = s.win[:0]
		for _, h := range hosts {
			s.host(h, horizon, final)
		}
		limit := until
		if !final {
			limit = min(limit, horizon-s.d)
		}
		if at, ok := s.first(limit); ok {
			return s.fit(at), true, s.most
		}
		if final || until <= horizon-s.d {
			// The windows hold exactly up to limit, which is until: no
			// host reached q.N (first would have), so no count was capped.
			return Fit{}, false, s.most
		}
	}
}

// untilNS is q.Until in nanoseconds, posInf when q has none.
func untilNS(q *Query) int64 {
	if q.Until.IsZero() {
		return posInf
	}
	return toNS(q.Until)
}

// only is EarliestFit's answer when the one start it may give is at (From
// and Until the same instant: may it start now?). The count of each host
// is FitCount's, read off the host's maximum usage over [at, at+d) (its
// change-point aggregates: no walk, but where reservations are ignored),
// which is the count the sweep would give at that start; so is the Fit.
// The scheduler asks this of every queued lease after each early end
// under aggressive backfilling, and the sweep was most of those runs.
func (s *fitSweep) only(at int64) (Fit, bool) {
	t, q := s.t, s.q
	end := addSat(at, max(int64(q.Duration), 1))
	s.peak = slices.Grow(s.peak[:0], t.Dims())[:t.Dims()]
	used := s.peak
	tally := fitTally{counts: s.counts[:0]} // scratch: copied out once, at its length
	for i := range t.hosts {
		h := HostID(i)
		if (q.Hosts != nil && !q.Hosts(h)) || t.Closed(h) {
			continue
		}
		ignore := q.Ignore
		if _, on := hostIn(q.ignoreOn, h); q.ignoreOn != nil && !on {
			ignore = nil // it reports no reservation of this host
		}
		t.usedQuery(h, at, end, ignore, q.SkipHidden, used)
		tally.add(t, h, used, q)
	}
	s.counts = tally.counts
	return tally.fit(q)
}

// fitTally adds up the hosts' counts for a fit at one start, q.From.
type fitTally struct {
	counts []HostCount
	total  int
}

// add counts host h, whose maximum usage over the interval is used.
func (f *fitTally) add(t *Table, h HostID, used []int64, q *Query) {
	f.addCount(h, fitCount(t.hosts[h].Capacity, used, q.Per, q.N))
}

// addCount counts c VMs on host h.
func (f *fitTally) addCount(h HostID, c int) {
	if c > 0 {
		f.counts = append(f.counts, HostCount{Host: h, Count: c})
		f.total += c
	}
}

// fit is the Fit at q.From when the hosts hold q.N together, with a copy
// of the tally's counts (which its callers keep in scratch room).
func (f *fitTally) fit(q *Query) (Fit, bool) {
	if f.total < q.N {
		return Fit{}, false
	}
	return Fit{Start: q.From, Counts: slices.Clone(f.counts)}, true
}

// grow multiplies a search width by four, saturating.
func grow(w int64) int64 {
	if w > posInf/4 {
		return posInf
	}
	return 4 * w
}

// fitHosts returns the allowed hosts that can hold a VM of size q.Per when
// empty, or nil if even empty they cannot hold q.N (in s's scratch space).
func (t *Table) fitHosts(q Query, s *fitSweep) []HostID {
	hosts := s.hosts[:0]
	total := 0
	s.peak = slices.Grow(s.peak[:0], t.Dims())[:t.Dims()]
	clear(s.peak)
	zero := s.peak
	for i, h := range t.hosts {
		id := HostID(i)
		if (q.Hosts != nil && !q.Hosts(id)) || t.Closed(id) {
			continue
		}
		if c := fitCount(h.Capacity, zero, q.Per, q.N); c > 0 {
			hosts = append(hosts, id)
			total += c
		}
	}
	s.hosts, s.room = hosts, total
	if total < q.N {
		return nil
	}
	return hosts
}

// fitSweep holds the state and scratch space of one EarliestFit.
type fitSweep struct {
	t        *Table
	q        *Query // &qv
	qv       Query  // the query, copied: a pointer to the caller's moved it to the heap
	from     int64
	d        int64 // duration in ns, >= 1
	w        walker
	peak     []int64
	lv       []level
	win      []window
	ev       []event
	hosts    []HostID
	at       []int32       // freedStarts' index of candidate hosts
	own      []ownRun      // ownRuns: the reservations left out of a count profile
	ownEdges []int64       // stepProfile: the starts and ends of own, in order
	cand     []hostRange   // freedStarts' candidate hosts
	fails    []failedRange // freedStarts' failed ranges that apply (failsFor)
	counts   []HostCount   // fit's and only's counts, before they are copied out
	room     int           // fitHosts: the VMs the allowed hosts hold when empty
	most     int           // first: the greatest total of the windows before its answer, or up to its limit
}

// sweeps keeps fitSweeps' scratch space between searches: the scheduler
// asks thousands of them per event, and allocating it afresh each time
// was a third of a simulation's allocations. (A pool, not a field of the
// table, because concurrent reads of a table are allowed.)
var sweeps = sync.Pool{New: func() any { return new(fitSweep) }}

// getSweep returns a fitSweep for a search of t for q, with empty scratch
// space; give it back with putSweep once nothing refers to it.
func getSweep(t *Table, q *Query) *fitSweep {
	s := sweeps.Get().(*fitSweep)
	s.qv = *q
	s.t, s.q, s.from, s.d = t, &s.qv, 0, 0
	s.lv, s.win, s.ev, s.hosts = s.lv[:0], s.win[:0], s.ev[:0], s.hosts[:0]
	return s
}

func putSweep(s *fitSweep) {
	s.t, s.q, s.qv = nil, nil, Query{} // qv holds the caller's funcs
	s.w.t, s.w.p = nil, nil
	s.w.ev = s.w.ev[:0]
	sweeps.Put(s)
}

// level is a stack entry of the level-interval sweep: at least h VMs have
// fit since a (and more than the entry below's h).
type level struct {
	h int
	a int64
}

// window says that host can hold w more VMs, for the whole duration, at
// any start in [s, e] (e == posInf: no end).
type window struct {
	host HostID
	s, e int64
	w    int
}

// host adds the windows of host h, walking its profile over [from,
// horizon); when final the profile beyond the horizon is taken as never
// changing again.
func (s *fitSweep) host(h HostID, horizon int64, final bool) {
	if s.roomy(h) {
		s.win = append(s.win, window{host: h, s: s.from, e: posInf, w: s.q.N})
		return
	}
	if p := s.read(h, horizon); p != nil {
		s.stepProfile(h, p, horizon, final)
		return
	}
	s.walk(h, horizon, final)
}

// read chooses how host h (not roomy) is swept from s.from up to
// horizon: it returns h's count profile when that answers, with s.own
// set to the VMs of the reservations left out there; otherwise nil, with
// the walker initialised for walk.
func (s *fitSweep) read(h HostID, horizon int64) *countProfile {
	t, per := s.t, s.q.Per
	ignore := s.q.Ignore
	at, on := hostIn(s.q.ignoreOn, h)
	if s.q.ignoreOn != nil && !on {
		ignore = nil // it reports no reservation of this host
	}
	switch {
	case s.q.SkipHidden && len(t.hiddenOn(h)) > 0:
		s.w.initQuery(t, h, s.from, horizon, ignore, true)
	case ignore != nil && s.q.ignoreSlots != nil:
		// The host's slots: side by side with its entries in ignoreOn.
		slots := s.q.ignoreSlots
		if s.q.ignoreOn != nil {
			end := at
			for end < len(s.q.ignoreOn) && s.q.ignoreOn[end] == h {
				end++
			}
			slots = slots[at:end]
		}
		if p := t.countProfileOf(h, per); p != nil && s.ownRuns(p, horizon, slots) {
			return p
		}
		s.w.initSlots(t, h, s.from, horizon, slots)
	default:
		if ignore == nil { // nothing left out: its count profile may answer
			if p := t.countProfileOf(h, per); p != nil {
				s.own = s.own[:0]
				return p
			}
		}
		s.w.init(t, h, s.from, horizon, ignore)
	}
	return nil
}

// walk adds the windows of host h from the walker read initialised.
func (s *fitSweep) walk(h HostID, horizon int64, final bool) {
	per, n := s.q.Per, s.q.N
	capy := s.t.hosts[h].Capacity
	cur := fitCount(capy, s.w.usage, per, n)
	s.lv = s.lv[:0]
	if cur > 0 {
		s.lv = append(s.lv, level{h: cur, a: s.from})
	}
	for s.w.next() {
		if c := fitCount(capy, s.w.usage, per, n); c != cur {
			s.step(h, s.w.at, c, false)
			cur = c
		}
	}
	s.step(h, horizon, 0, final)
}

// hostIn returns the position of the first of the sorted hosts that is h
// or after it, and whether it is h: slices.BinarySearch's answer without
// its generic call and comparison function (a search asks it of every
// host it sweeps).
func hostIn(hosts []HostID, h HostID) (int, bool) {
	lo, hi := 0, len(hosts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if hosts[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(hosts) && hosts[lo] == h
}

// roomy reports whether host h holds N VMs even at its peak usage over
// all time (its change-point tree's summary, kept in Table.peak: O(1));
// ignoring reservations only lowers usage, so it holds for any Ignore
// too.
func (s *fitSweep) roomy(h HostID) bool {
	t := s.t
	d := len(t.names)
	o := int(h) * d
	return fitCount(t.capv[o:o+d], t.peak[o:o+d], s.q.Per, s.q.N) >= s.q.N
}

// step moves host h's level stack to the value v at time at, emitting the
// level intervals that end there.
func (s *fitSweep) step(h HostID, at int64, v int, open bool) {
	popped, start := false, at
	for k := len(s.lv); k > 0 && s.lv[k-1].h > v; k = len(s.lv) {
		top := s.lv[k-1]
		s.lv = s.lv[:k-1]
		below := v
		if k >= 2 {
			below = max(below, s.lv[k-2].h)
		}
		s.window(h, top.a, at, top.h-below, open)
		popped, start = true, top.a
	}
	if v > 0 && (len(s.lv) == 0 || s.lv[len(s.lv)-1].h < v) {
		if !popped {
			start = at
		}
		s.lv = append(s.lv, level{h: v, a: start})
	}
}

// window records that w levels of host h hold over [a, b) (or [a, +inf)
// when open).
func (s *fitSweep) window(h HostID, a, b int64, w int, open bool) {
	if open {
		s.win = append(s.win, window{host: h, s: a, e: posInf, w: w})
		return
	}
	if uint64(b)-uint64(a) < uint64(s.d) {
		return
	}
	s.win = append(s.win, window{host: h, s: a, e: b - s.d, w: w})
}

// first returns the earliest time <= limit at which the windows open
// there add up to at least N.
func (s *fitSweep) first(limit int64) (int64, bool) {
	ev := s.ev[:0]
	for _, w := range s.win {
		if w.s > limit {
			continue
		}
		ev = append(ev, event{at: w.s, sign: int64(w.w)})
		if w.e != posInf {
			ev = append(ev, event{at: w.e + 1, sign: -int64(w.w)})
		}
	}
	s.ev = ev
	sortEvents(ev)
	total := 0
	s.most = 0
	for i := 0; i < len(ev); {
		at := ev[i].at
		if at > limit {
			break
		}
		for ; i < len(ev) && ev[i].at == at; i++ {
			total += int(ev[i].sign)
		}
		if total >= s.q.N {
			return at, true
		}
		s.most = max(s.most, total)
	}
	return 0, false
}

// fit builds the answer for start at from the windows (which are in host
// order).
func (s *fitSweep) fit(at int64) Fit {
	f := Fit{Start: s.q.From}
	if at != s.from {
		f.Start = fromNS(at, s.q.From.Location())
	}
	counts := s.counts[:0] // scratch: copied out once, at its length
	for _, w := range s.win {
		if w.s > at || w.e < at {
			continue
		}
		if k := len(counts); k > 0 && counts[k-1].Host == w.host {
			counts[k-1].Count += w.w
		} else {
			counts = append(counts, HostCount{Host: w.host, Count: w.w})
		}
	}
	s.counts = counts
	f.Counts = slices.Clone(counts)
	return f
}
