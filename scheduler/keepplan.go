package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// keepPlan is replanPass's shortcut for a queued lease whose plan would
// come out the same. replanPass takes the plan (removing its
// reservations), plans the lease again and, most of the time after an
// early end, reserves exactly what it removed. keepPlan asks the slot
// table the same question with the lease's reservations left out
// (EarliestFitWithout: the table as takePlan would leave it), chooses the
// hosts as find would, and when the plan that build would lay out is the
// one the lease has, keeps its reservations and only gives them the IDs
// that removing and adding them again would (Renumber). It reports
// whether it did; otherwise nothing has changed (but the lease's fit
// memo, which stays true) and the caller plans the lease the usual way.
//
// It applies only where planQueued would do nothing but find, options,
// the mapper and build: no promise, pending preemption, saved images,
// admin migration or deadline, a plan from its first phase not ending in
// a suspension, and, when the start is later than the earliest allowed,
// no preemption (a local lease under a preempting policy) and no short
// run to try.
func (s *Scheduler) keepPlan(l *Lease, now time.Time) bool {
	sp, total, from, ok := s.keepable(l, now, false)
	if !ok {
		return false
	}
	was := l.plan[0].start
	q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: total, From: from}
	fit, ok := s.table.EarliestFitWithout(q, uint64(l.ID), &l.fit)
	if !ok || !fit.Start.Equal(was) || !s.startsAlone(l, fit.Start, from) {
		return false
	}
	var hosts []slottable.HostID
	known := false
	if l.kept != 0 && l.fit.Since() == l.kept && l.gen == l.keptGen {
		// The same fit on the same table there as when the plan was last
		// kept, and the same plan: the same options, so the mapper's
		// choice then, which the plan's hosts are. With the same steps,
		// relabel's comparison then holds still.
		hosts = l.plan[0].hosts
		known = slices.Equal(sp, l.keptSteps[:l.keptN])
	} else {
		hosts = s.mapper(s.optionsWithout(l, fit), l.Req.VMs)
	}
	if !s.relabel(l, hosts, sp, 2, known) {
		return false
	}
	l.kept, l.keptGen = l.fit.Since(), l.gen
	l.keptN = uint8(copy(l.keptSteps[:], sp)) // more than 4: never equal, never known
	return true
}

// keepable checks keepPlan's conditions on the lease itself, and returns
// its steps (in s.keepSteps: read before the next keepable; asked for
// every queued lease at every pass, they were a sixth of a ch.3 run's
// allocations), their total and its earliest allowed start. With saved, a
// lease with saved images passes too, unless it must resume on its own
// hosts (keepLazy checks the rest).
func (s *Scheduler) keepable(l *Lease, now time.Time, saved bool) ([]stepSpec, time.Duration, time.Time, bool) {
	if l.State != Scheduled || l.entered || l.cur != 0 || len(l.plan) == 0 || l.promise != nil ||
		l.pending != nil || l.preemptPending || l.saved && (!saved || s.cfg.Migration == MigrationNo) ||
		len(l.avoid) > 0 || deadlineBound(l) || l.after != afterDone {
		return nil, 0, time.Time{}, false
	}
	sp, total := s.stepsInto(s.keepSteps[:0], l)
	from := s.earliestFor(l, now)
	if l.plan[0].start.Before(from) {
		return nil, 0, time.Time{}, false
	}
	return sp, total, from, true
}

// startsAlone reports whether planQueued, finding l's earliest fit at
// start, would take it without trying anything else first: it starts at
// from, or l may neither preempt nor run short.
func (s *Scheduler) startsAlone(l *Lease, start, from time.Time) bool {
	return !start.After(from) || !(s.rule.Preempts(l) && s.cfg.Policy != preempt.NOP ||
		s.cfg.ThresholdFactor > 0 && s.rule.Preemptable(l) && s.suspendable(l))
}

// relabel keeps l's plan when build would lay it out on hosts (steps sp)
// as it is, giving its reservations the IDs that removing and adding them
// again would, and moving its gen on by gens (what unplan and build would
// have done); it reports whether it did (otherwise nothing changed).
// known says that relabel kept this plan, with these hosts and steps,
// last time and the plan has not changed since (keepPlan): it was the
// one build would lay out, and its reservations are in reserve's order.
func (s *Scheduler) relabel(l *Lease, hosts []slottable.HostID, sp []stepSpec, gens uint64, known bool) bool {
	if !known && !s.samePlan(l, l.plan[0].start, hosts, sp) {
		return false
	}
	// Every reservation, checked before anything changes, so that
	// Renumber below cannot fail.
	for _, ph := range l.plan {
		for _, id := range ph.res {
			if !s.table.Has(id) {
				return false
			}
		}
	}
	if known && s.cfg.CheckInvariants {
		if s.knownKeeps%knownCheckEvery == 0 {
			s.mustBeKnown(l, hosts, sp)
		}
		s.knownKeeps++
	}
	l.gen += gens
	if !known { // known: it is so already
		s.putInOrder(l, hosts)
	}
	for i := range l.plan {
		_ = s.table.RenumberAll(l.plan[i].res) // checked above: each is there
	}
	s.push(l, l.plan[0].start)
	return true
}

// putInOrder gives each phase of l's plan the hosts hosts and puts its
// reservations in reserve's order for them (samePlan has checked that
// there is one per distinct host).
func (s *Scheduler) putInOrder(l *Lease, hosts []slottable.HostID) {
	if !slices.Equal(hosts, l.plan[0].hosts) {
		s.exact = false // the hosts in another order than from scratch (exact.go)
	}
	var obuf [32]hostRes
	order := appendDistinct(s.hostBuf(0, len(hosts)), hosts) // reserve's order
	defer s.keepHostBuf(0, order)
	for i := range l.plan {
		ph := &l.plan[i]
		if !s.inOrder(ph, order) {
			// The phase's reservation on each host (samePlan: one per
			// distinct host, in the order of their first VMs), put in
			// reserve's order.
			olds := hostReses(obuf[:0])
			distinct := appendDistinct(s.hostBuf(1, len(ph.hosts)), ph.hosts)
			for j, h := range distinct {
				olds = append(olds, hostRes{h, ph.res[j]})
			}
			s.keepHostBuf(1, distinct)
			slices.SortFunc(olds, func(a, b hostRes) int { return cmp.Compare(a.h, b.h) })
			ph.res = ph.res[:0]
			for _, h := range order {
				ph.res = append(ph.res, olds.of(h))
			}
		}
		ph.hosts = hosts
	}
}

// knownCheckEvery is how many of relabel's known cases pass between two
// checks of one: checking each would cost what the known case saves, and
// bora simulate checks the invariants by default.
const knownCheckEvery = 16

// mustBeKnown panics unless l's plan is what relabel, told it is known,
// takes it to be: the one build lays out on hosts with steps sp, each
// phase's reservations in reserve's order.
func (s *Scheduler) mustBeKnown(l *Lease, hosts []slottable.HostID, sp []stepSpec) {
	order := appendDistinct(nil, hosts)
	ok := s.samePlan(l, l.plan[0].start, hosts, sp)
	for i := range l.plan {
		ok = ok && slices.Equal(l.plan[i].hosts, hosts) && s.inOrder(&l.plan[i], order)
	}
	if !ok {
		panic(fmt.Sprintf("bora: scheduler invariant broken: lease %d's kept plan is not the one it was kept with", l.ID))
	}
}

// inOrder reports whether phase ph holds one reservation on each host of
// order, in that order (relabel can then renumber them as they are).
func (s *Scheduler) inOrder(ph *phase, order []slottable.HostID) bool {
	if len(ph.res) != len(order) {
		return false
	}
	for j, id := range ph.res {
		if h, ok := s.table.HostOf(id); !ok || h != order[j] {
			return false
		}
	}
	return true
}

// hostRes is a phase's reservation on one host.
type hostRes struct {
	h  slottable.HostID
	id slottable.ResID
}

// hostReses is a phase's reservations, sorted by host.
type hostReses []hostRes

// of returns the reservation on host h (0 when there is none: samePlan
// has checked that every host of the new plan had one).
func (rs hostReses) of(h slottable.HostID) slottable.ResID {
	i, ok := slices.BinarySearchFunc(rs, h, func(r hostRes, h slottable.HostID) int { return cmp.Compare(r.h, h) })
	if !ok {
		return 0
	}
	return rs[i].id
}

// optionsWithout is options (restrict false) for a fit at the start of l's
// plan, on the table without l's reservations: a host is busy if it holds
// other CPU at the start than the first phase of l's plan.
func (s *Scheduler) optionsWithout(l *Lease, fit slottable.Fit) []HostOption {
	var mbuf [32]slottable.HostID
	mine := append(mbuf[:0], l.plan[0].hosts...)
	slices.Sort(mine)
	opts := s.optBuf[:0] // the mapper's input only
	used := s.usedBuf
	for _, c := range fit.Counts {
		if c.Count <= 0 {
			continue
		}
		used = s.table.UsedInto(used, c.Host, fit.Start, fit.Start.Add(time.Nanosecond))
		busy := used[slottable.CPU]-l.Req.CPU*int64(countOf(mine, c.Host)) > 0
		opts = append(opts, HostOption{Host: c.Host, Count: c.Count, Busy: busy})
	}
	s.optBuf, s.usedBuf = opts, used
	return opts
}

// countOf is how many times h occurs in sorted.
func countOf(sorted []slottable.HostID, h slottable.HostID) int {
	i, ok := slices.BinarySearch(sorted, h)
	if !ok {
		return 0
	}
	n := 1
	for i+n < len(sorted) && sorted[i+n] == h {
		n++
	}
	return n
}

// samePlan reports whether build(l, placement{start, hosts}, sp) would lay
// out l's plan as it is: the same phases (as build lays them out: per-host
// times on local storage, no copy when it resumes where it was) over the
// same intervals, with as many VMs on each host (the same hosts, sorted,
// and as many distinct hosts as reservations).
func (s *Scheduler) samePlan(l *Lease, start time.Time, hosts []slottable.HostID, sp []stepSpec) bool {
	i, t := 0, start
	now := append(s.hostBuf(2, len(hosts)), hosts...)
	defer s.keepHostBuf(2, now)
	slices.Sort(now)
	distinct := 0
	for k, h := range now {
		if k == 0 || h != now[k-1] {
			distinct++
		}
	}
	prev := s.hostBuf(3, len(hosts))
	defer func() { s.keepHostBuf(3, prev) }()
	same := l.saved && sameHosts(l.prevHost, hosts)
	for _, st := range s.onHosts(l, sp, hosts) {
		if st.d <= 0 || st.kind == phMigrate && same {
			continue // build leaves it out
		}
		if i == len(l.plan) {
			return false
		}
		p := l.plan[i]
		if p.kind != st.kind || !p.start.Equal(t) || !p.end.Equal(t.Add(st.d)) || len(p.res) != distinct {
			return false
		}
		prev = append(prev[:0], p.hosts...)
		slices.Sort(prev)
		if !slices.Equal(prev, now) {
			return false
		}
		t = p.end
		i++
	}
	return i == len(l.plan)
}

// hostBuf returns scratch list i of hostBufs, empty, with room for n.
func (s *Scheduler) hostBuf(i, n int) []slottable.HostID {
	return slices.Grow(s.hostBufs[i][:0], n)
}

// keepHostBuf keeps list b, taken from hostBuf(i), for the next use.
func (s *Scheduler) keepHostBuf(i int, b []slottable.HostID) {
	s.hostBufs[i] = b[:0]
}

// distinctHosts lists hosts without repeats, in order of first appearance
// (the order in which reserve adds a phase's reservations).
func distinctHosts(hosts []slottable.HostID) []slottable.HostID {
	return appendDistinct(make([]slottable.HostID, 0, len(hosts)), hosts)
}

// appendDistinct appends hosts to out without repeats, in order of first
// appearance (out empty; its room spares an allocation).
func appendDistinct(out, hosts []slottable.HostID) []slottable.HostID {
	if len(hosts) <= 16 {
		for _, h := range hosts {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
		return out
	}
	// Host IDs are small and dense: a bitset of them, on the stack up to
	// 512 hosts (a map here was a sixth of a run's allocations).
	lo, top := slices.Min(hosts), int(slices.Max(hosts))
	if lo < 0 {
		return appendDistinctMap(out, hosts)
	}
	var small [8]uint64
	seen := small[:]
	if top >= 64*len(small) {
		seen = make([]uint64, top/64+1)
	}
	for _, h := range hosts {
		if w, bit := h/64, uint64(1)<<(h%64); seen[w]&bit == 0 {
			seen[w] |= bit
			out = append(out, h)
		}
	}
	return out
}

// appendDistinctMap is appendDistinct for any host IDs.
func appendDistinctMap(out, hosts []slottable.HostID) []slottable.HostID {
	seen := make(map[slottable.HostID]bool, len(hosts))
	for _, h := range hosts {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}
