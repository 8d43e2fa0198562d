package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// Lazy re-planning from scratch.
//
// After a fixed lease (immediate, advance reservation or deadline), the
// queued leases give way: unplanQueue drops their plans, and the next replanPass plans each
// again on the table holding the fixed leases and the new plans of the
// leases ahead of it in passOrder. Most of the time every one of them gets
// the plan it had back, and removing and adding those reservations was
// most of a contended run's time. deferQueue marks the plans lazy instead
// and leaves them in the table, hidden (slottable.Table.SetHidden); until
// they are settled:
//
//   - a search made amid them (Scheduler.amid) leaves them out, as the
//     table without them would answer (findIgnoring: SkipHidden, and a
//     host they alone occupy is not busy), and reserving drops those in
//     the way of what is reserved (dropLazyIn); so are placed the fixed
//     lease (findFixed), a deadline-bound queued lease (amidFor) and the
//     first search of moveDeadlines;
//   - the fixed lease is refused as it would be without them
//     (lazyRefusal); anything else drops them all first (dropLazy: then
//     everything is as unplanQueue left it);
//   - replanPass keeps a lazy lease's plan where it proves that planning
//     it from scratch gives that plan (keepLazy), and otherwise drops the
//     lazy plans left and plans on as usual.
//
// A lazy plan never outlives the run that follows (Scheduler.run drops
// what is left), so nothing else sees one. Keeping a plan gives its
// reservations the IDs that removing and adding them again would
// (relabel), so the table, the leases and every decision after are what
// they would have been.

// bound says that no start in [from, start) fitted a lease's whole time
// (total) on the table as it was at mark, without the lease's
// reservations and those of the leases behind it in passOrder: its memo
// says so when it was planned from scratch or at the tail of the queue,
// and keepLazy proves it again when it keeps a plan.
type bound struct {
	set         bool
	mark        uint64 // slottable.Table.FreedMark
	from, start time.Time
	total       time.Duration
}

// noteBound records l's bound after planQueued, from the table's mark
// before it, when l's plan starts where its memo says the earliest fit of
// its whole time is (nothing else moved it: no preemption, short run or
// host restriction).
func (s *Scheduler) noteBound(l *Lease, now time.Time, mark uint64, planned bool) {
	l.bound = bound{}
	if !planned || l.State != Scheduled || len(l.plan) == 0 || l.entered || len(l.avoid) > 0 || deadlineBound(l) {
		return
	}
	_, total := s.steps(l)
	from := s.earliestFor(l, now)
	start := l.plan[0].start
	q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: total, From: from}
	if l.fit.Answers(q, start) {
		l.bound = bound{set: true, mark: mark, from: from, start: start, total: total}
	}
}

// deferQueue is unplanQueue that leaves the plans in the table, lazy.
func (s *Scheduler) deferQueue() {
	if s.eager {
		s.unplanQueue()
		return
	}
	for _, id := range s.queue {
		l := s.leases.get(id)
		if l.State == Scheduled && !l.entered && !deadlineBound(l) && !s.starved(l, s.now) {
			l.gen++ // as unplan: its wake-ups are stale
			if len(l.plan) > 0 {
				s.setLazy(l, true)
				s.lazyList = append(s.lazyList, l)
				s.lazyLive = append(s.lazyLive, lazyRef{slottable.Nanos(l.plan[0].start), slottable.Nanos(l.plan[len(l.plan)-1].end), l.ID, l})
			}
			l.fromScratch, s.fromScratch = true, true
		}
	}
}

// dropLazy removes every lazy plan from the table, as unplanQueue would
// have.
func (s *Scheduler) dropLazy() {
	for _, l := range s.lazyList {
		if s.isLazy(l) {
			s.dropPlan(l)
		}
	}
	clear(s.lazyList)
	clear(s.lazyLive)
	s.lazyList, s.lazyLive = s.lazyList[:0], s.lazyLive[:0]
}

// lazyRef is a lazy plan for lazyHosts: from its start to its end, in
// slottable.Nanos, and its lease.
type lazyRef struct {
	from, to int64
	id       LeaseID // the lease's, for isLazy without reading the lease
	l        *Lease
}

// amidFor reports whether replanPass, reaching deadline-bound lease l
// among lazy plans, can plan it amid them rather than drop them all: its
// searches leave them out (findIgnoring, with the table's hidden
// reservations), reserving drops those in the way of what it reserves
// (reserve), and the queued leases that give way pass the lazy ones over
// (takeQueued: from scratch they hold no plan). planByDeadline does
// nothing else when l holds a plan, which it gives back or replaces
// with an earlier one; it would find nothing the lazy plans hold.
func (s *Scheduler) amidFor(l *Lease) bool {
	return deadlineBound(l) && !l.entered && l.State == Scheduled && len(l.plan) > 0 && !s.isLazy(l) &&
		s.cfg.Migration != MigrationNo && !s.mayRunShort(l)
}

// dropLazyIn makes room for res on host h over [from, to), to be
// reserved for lease l: when it does not fit there as the table is, the
// lazy plans but l's with a phase on h over that interval are dropped
// (without them it fits: it was found so).
func (s *Scheduler) dropLazyIn(l *Lease, h slottable.HostID, from, to time.Time, res slottable.Resources) {
	host, _ := s.table.Host(h)
	s.usedBuf = s.table.UsedInto(s.usedBuf, h, from, to)
	fits := true
	for j, v := range res {
		if j < len(s.usedBuf) && j < len(host.Capacity) && s.usedBuf[j]+v > host.Capacity[j] {
			fits = false
		}
	}
	if fits {
		return
	}
	for _, q := range s.lazyList {
		if q == l || !s.isLazy(q) {
			continue
		}
		for _, p := range q.plan {
			if p.start.Before(to) && from.Before(p.end) && slices.Contains(p.hosts, h) {
				s.dropPlan(q)
				break
			}
		}
	}
}

// orLazy is ignore or lazyPlan.
func (s *Scheduler) orLazy(ignore func(slottable.Reservation) bool) func(slottable.Reservation) bool {
	if ignore == nil {
		return s.lazyPlan
	}
	return func(r slottable.Reservation) bool { return s.lazyPlan(r) || ignore(r) }
}

// dropPlan removes lazy lease l's plan (unplan, its gen already moved on).
func (s *Scheduler) dropPlan(l *Lease) {
	for _, p := range l.plan {
		for _, id := range p.res {
			_ = s.table.Remove(id)
		}
	}
	l.plan = l.plan[:0]
	s.setLazy(l, false)
}

// setLazy marks l's plan lazy or not.
func (s *Scheduler) setLazy(l *Lease, on bool) {
	if s.isLazy(l) == on {
		return
	}
	if on {
		s.lazyN++
	} else {
		s.lazyN--
	}
	if id := int(l.ID); id >= len(s.lazySet) {
		s.lazySet = append(s.lazySet, make([]bool, id+1-len(s.lazySet))...)
	}
	s.lazySet[l.ID] = on
	for _, p := range l.plan { // hidden from amid searches (amidFor)
		for _, id := range p.res {
			_ = s.table.SetHidden(id, on)
		}
	}
}

// isLazy reports whether l's plan is lazy.
func (s *Scheduler) isLazy(l *Lease) bool {
	return int(l.ID) < len(s.lazySet) && s.lazySet[l.ID]
}

// lazyPlan reports whether r belongs to a lazy plan.
func (s *Scheduler) lazyPlan(r slottable.Reservation) bool {
	return r.Lease < uint64(len(s.lazySet)) && s.lazySet[r.Lease]
}

// lazyIgnore is lazyPlan while there are lazy plans, nil otherwise.
func (s *Scheduler) lazyIgnore() func(slottable.Reservation) bool {
	if s.lazyN == 0 {
		return nil
	}
	return s.lazyPlan
}

// findFixed is find for fixed lease l on the table without the lazy
// plans (amid); reserving its plan drops those in its way (reserve).
func (s *Scheduler) findFixed(l *Lease, from, until time.Time, total time.Duration) (placement, bool) {
	s.amid = true
	defer func() { s.amid = false }()
	return s.find(l, from, until, total, nil)
}

// lazyRefusal is the refusal preemptFor would give lease l (starting at
// from, the only start it may have, lasting total) on the table without
// the lazy plans, when its candidates cannot make room; nil when they
// can, or when from is not the only start.
func (s *Scheduler) lazyRefusal(l *Lease, from, until time.Time, total time.Duration) *refusal {
	if !from.Equal(until) {
		return nil
	}
	// The lazy leases among the candidates change nothing: the oracle
	// leaves their plans out anyway, and l does not fit without them
	// (findFixed), so there are others when it fits without all.
	cands := s.candidates(l, from, from.Add(total))
	full := len(cands) > 0 && s.oracle(l, from, total, cands)(fullSet(len(cands)))
	if s.cfg.Policy == preempt.NOP {
		return refusalNOP(full)
	}
	if full {
		return nil
	}
	return refusalEvenPreempting()
}

// keepLazy keeps lazy lease l's plan when planning it from scratch would
// give that plan, and reports whether it did (otherwise nothing changed
// but l's fit memo). mayReserve is replanPass's.
//
// From scratch, l would be planned on the table without its reservations
// and the lazy plans (those behind it). Its plan fits there (it fits with
// them), so the earliest fit is no later than its start; and its bound
// says no earlier start fitted at the bound's mark, with usage over those
// starts' windows at least what it was since (FreedSince), so none fits
// now: the earliest fit is its start. The fit on the table with the lazy
// plans (EarliestFitWithout, as keepPlan asks it) starts there too, and
// on every host but those where a lazy plan overlaps the interval, the
// counts and busy flags are the same: those are counted again without
// them (lazyOptions). The mapper then chooses as it would from scratch.
// For a lease with saved images, findExclusive's check of the image
// operations is asked again without the lazy plans (which imageOps leaves
// out); a bound exists only when its first fit passed that check. relabel
// checks the rest as keepPlan does.
func (s *Scheduler) keepLazy(l *Lease, now time.Time, mayReserve bool) bool {
	b := l.bound
	sp, total, from, ok := s.keepable(l, now, true)
	if !ok || !b.set {
		return false
	}
	was := l.plan[0].start
	if !b.start.Equal(was) || b.from.After(from) || b.total != total || was.After(from) && !mayReserve ||
		!s.startsAlone(l, was, from) {
		return false
	}
	if s.table.FreedSince(b.mark, uint64(l.ID), from, was.Add(total)) {
		return false
	}
	mark := s.table.FreedMark()
	q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: total, From: from}
	fit, ok := s.table.EarliestFitWithout(q, uint64(l.ID), &l.fit)
	if !ok || !fit.Start.Equal(was) {
		return false // cannot happen: see above
	}
	affected := s.lazyHosts(l, was, was.Add(total))
	opts := s.optionsWithout(l, fit)
	if len(affected) > 0 {
		opts = s.lazyOptions(l, opts, was, total, affected)
	}
	hosts := s.mapper(opts, l.Req.VMs)
	if l.saved {
		// As planQueued: where its images are; and findExclusive takes
		// the fit only if its image operations overlap no other's.
		if len(l.Hosts) > 0 {
			l.prevHost = hostsOf(l.Hosts)
		}
		if clear, _ := s.opsClear(l, placement{start: was, hosts: hosts}, imageOpsTime(sp)); !clear {
			return false
		}
	}
	// unplan's gen was counted by deferQueue: build's is left.
	if !s.relabel(l, hosts, sp, 1, false) {
		return false
	}
	s.setLazy(l, false)
	l.fromScratch = false
	l.scratch = l.fit
	l.kept, l.keptGen = l.fit.Since(), l.gen
	if len(affected) > 0 {
		l.kept = 0 // the hosts were not chosen from the answer's options
	}
	l.bound = bound{set: true, mark: mark, from: from, start: was, total: total}
	return true
}

// mustLazySpans panics unless lazyLive notes every lazy plan with the
// span it has: a lazy plan does not change until it is kept or dropped.
// (An entry left from before a lease was kept or dropped and made lazy
// again only adds hosts that lazyHosts then checks phase by phase.)
func (s *Scheduler) mustLazySpans() {
	noted := map[*Lease]bool{}
	for _, r := range s.lazyLive {
		if s.isLazy(r.l) && slottable.Nanos(r.l.plan[0].start) == r.from && slottable.Nanos(r.l.plan[len(r.l.plan)-1].end) == r.to {
			noted[r.l] = true
		}
	}
	for _, q := range s.lazyList {
		if s.isLazy(q) && !noted[q] {
			panic(fmt.Sprintf("bora: scheduler invariant broken: lazy lease %d is not noted with its span [%s, %s)", q.ID, q.plan[0].start, q.plan[len(q.plan)-1].end))
		}
	}
}

// lazyHosts lists, sorted, the hosts where a lazy plan other than l's
// overlaps [start, end).
func (s *Scheduler) lazyHosts(l *Lease, start, end time.Time) []slottable.HostID {
	if s.cfg.CheckInvariants {
		s.mustLazySpans()
	}
	var hs []slottable.HostID
	// The plans still lazy, from the first plan's start to the last's end
	// at hand (the leases are not): those kept or dropped since leave as
	// they are met, the last moved into their place.
	f, e := slottable.Nanos(start), slottable.Nanos(end)
	live := s.lazyLive
	for i := 0; i < len(live); {
		r := &live[i]
		if int(r.id) >= len(s.lazySet) || !s.lazySet[r.id] { // isLazy(r.l)
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		i++
		if r.from > e || f > r.to || r.l == l {
			continue
		}
		q := r.l
		for _, p := range q.plan {
			if p.start.Before(end) && start.Before(p.end) {
				hs = append(hs, p.hosts...)
			}
		}
	}
	clear(live[len(live):len(s.lazyLive)])
	s.lazyLive = live
	slices.Sort(hs)
	return slices.Compact(hs)
}

// lazyOptions is opts (the mapper's options for l at start, lasting
// total, on the table with the lazy plans, by host) with the hosts in
// affected (sorted) counted without the lazy plans.
func (s *Scheduler) lazyOptions(l *Lease, opts []HostOption, start time.Time, total time.Duration, affected []slottable.HostID) []HostOption {
	out := make([]HostOption, 0, len(opts)+len(affected))
	at := make(slottable.Resources, s.table.Dims())
	i := 0
	for _, h := range affected {
		for i < len(opts) && opts[i].Host < h {
			out = append(out, opts[i])
			i++
		}
		if i < len(opts) && opts[i].Host == h {
			i++
		}
		// l's plan is lazy too: hidden with the others.
		c := s.table.FitCountAt(h, start, start.Add(total), l.Per(), l.Req.VMs, nil, true, at)
		if c > 0 {
			out = append(out, HostOption{Host: h, Count: c, Busy: at[slottable.CPU] > 0})
		}
	}
	return append(out, opts[i:]...)
}
