package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Deadlines of preempted leases. A migratable lease with a deadline is
// guaranteed its duration and its deadline (docs/models.md §1): when it
// is preempted it must still be able to end by its deadline. Two rules
// keep that promise:
//
//  1. Choosing victims (lateVictims): a set of leases to preempt is
//     accepted only if each deadline-bound victim can then be planned
//     again, after its operation, to end by its deadline: in a copy of the
//     slot table as it will be (the victims cut, the preempting lease
//     placed, queued leases that have not begun gone, since they give
//     way), its restart is planned as the queue would plan it. A victim
//     for which that fails (or whose operation is a cancel: it would never
//     end) is dropped from the candidates and the policy chooses again.
//  2. Planning it again (planByDeadline): a deadline-bound lease in the
//     queue is planned before the other queued leases, earliest deadline
//     first, and takes a placement that ends by its deadline, making the
//     queued leases that have not begun give way if that is the only way.
//     It preempts no running lease: external leases are preempted only by
//     local leases and advance reservations. Only when nothing ends in
//     time is it planned as any queued lease, and flagged deadline-missed.
//
// What the check of rule 1 cannot foresee is what arrives between the
// decision and the restart: a local lease accepted meanwhile may take the
// room, and the lease is then flagged.

// deadlineBound reports whether l must end by its deadline even when
// preempted: migratable deadline leases, whose deadline was checked when
// they were accepted. (A best-effort lease may carry a deadline too; it
// was promised nothing, and is only flagged when it misses it.)
func deadlineBound(l *Lease) bool {
	return l.Req.Class == Migratable && l.Req.Kind == Deadline && !l.Deadline.IsZero()
}

// lateVictims returns the deadline-bound victims that could not be planned
// again to end by their deadline if the victims were preempted as laid out
// and lease pre placed at p (lasting total).
func (s *Scheduler) lateVictims(pre *Lease, p placement, total time.Duration, victims []*victim, now time.Time) []*victim {
	var late, bound []*victim
	for _, v := range victims {
		switch {
		case !deadlineBound(v.l):
		case v.op == OpCancel:
			late = append(late, v) // cancelled: it would never end
		default:
			bound = append(bound, v)
		}
	}
	if len(bound) == 0 {
		return late
	}
	if s.amid && s.lazyN > 0 {
		s.amidUnsure = true // planned again on a copy: not amid (preemptRefusedAmid)
		return late
	}
	defer s.onCopy()()
	if !s.foresee(pre, p, total, victims, now) {
		return append(late, bound...)
	}
	sort.SliceStable(bound, func(i, j int) bool { return bound[i].l.Deadline.Before(bound[j].l.Deadline) })
	for _, v := range bound {
		c, from := s.restarted(v, now)
		sp, d := s.steps(c)
		until := c.Deadline.Add(-d)
		if until.Before(from) {
			late = append(late, v)
			continue
		}
		q, ok := s.findExclusive(c, from, until, d, sp)
		if !ok {
			var boots []slottable.HostID
			if q, boots, ok = s.findWithBoots(c, from, until, d, sp, now); ok {
				for _, h := range boots {
					s.openHost(h, q.start) // switched on for it (bootrestart.go)
				}
			}
		}
		if !ok {
			late = append(late, v)
		} else if _, ok := s.reserveSteps(c, q, sp); !ok {
			late = append(late, v)
		}
	}
	return late
}

// onCopy points s.table at a copy of the table for a what-if and returns
// what points it back. The copy is made in the memory of the last one
// (s.spare; a copy taken while another is in use gets new memory): as
// new copies, lateVictims' were 3 % of the ch.3 local-share sweep's CPU
// profile.
func (s *Scheduler) onCopy() (back func()) {
	real, c := s.table, s.table.CloneReusing(s.spare)
	s.table, s.spare = c, nil
	return func() { s.table, s.spare = real, c }
}

// foresee turns s.table (a copy) into what it will be once the victims
// are preempted and pre is placed at p: each running victim holds its
// hosts until its operation is over, and then nothing; queued leases that
// may give way (mayGiveWay) hold nothing.
func (s *Scheduler) foresee(pre *Lease, p placement, total time.Duration, victims []*victim, now time.Time) bool {
	drop := func(l *Lease) {
		for i := l.cur; i < len(l.plan); i++ {
			for _, id := range l.plan[i].res {
				_ = s.table.Remove(id)
			}
		}
		for _, id := range l.promise {
			_ = s.table.Remove(id)
		}
	}
	for _, id := range s.queue {
		if q := s.leases.get(id); mayGiveWay(q) {
			drop(q)
		}
	}
	for _, v := range victims {
		drop(v.l)
		if v.op == OpUnreserve {
			continue
		}
		hosts := v.l.plan[v.l.cur].hosts
		kind := phStop
		if v.op == OpSuspend || v.op == OpMigrate {
			kind = phSuspend
		}
		for _, ph := range []phase{{kind: phRun, start: now, end: v.from, hosts: hosts}, {kind: kind, start: v.from, end: v.to, hosts: hosts}} {
			if ph.end.After(ph.start) && s.reserve(v.l, &ph) != nil {
				return false
			}
		}
	}
	ph := phase{kind: phRun, start: p.start, end: p.start.Add(total), hosts: p.hosts}
	return s.reserve(pre, &ph) == nil
}

// restarted is victim v's lease as the queue will plan it again after its
// operation (a copy: the lease itself is not changed), and the earliest
// time it may then start.
func (s *Scheduler) restarted(v *victim, now time.Time) (*Lease, time.Time) {
	c := *v.l
	back := now // unreserved: planned again at once
	switch v.op {
	case OpSuspend, OpMigrate:
		c.saved, c.migrate = true, v.op == OpMigrate
		c.prevHost = v.hosts
		c.Remaining = v.left - v.from.Sub(v.runStart)
		back = v.to
	case OpRequeue:
		c.saved, c.migrate, c.prevHost = false, false, nil
		c.Remaining = c.Req.Duration
		back = v.to
	}
	if w := s.cfg.WakeUp; w > 0 { // the queue is planned at the next tick
		n := (back.Sub(s.epoch) + w - 1) / w
		back = s.epoch.Add(n * w)
	}
	from := s.earliest(back)
	if c.Ready.After(from) {
		from = c.Ready
	}
	return &c, from
}

// reserveSteps reserves l's steps from p.start on p.hosts in s.table,
// without making them l's plan, and returns the reservations. It reports
// false, having reserved nothing, if the table refused one.
func (s *Scheduler) reserveSteps(l *Lease, p placement, sp []stepSpec) ([]slottable.ResID, bool) {
	var ids []slottable.ResID
	t := p.start
	for _, st := range sp {
		if st.d <= 0 {
			continue
		}
		ph := phase{kind: st.kind, start: t, end: t.Add(st.d), hosts: p.hosts}
		if s.reserve(l, &ph) != nil {
			for _, id := range ids {
				_ = s.table.Remove(id)
			}
			return nil, false
		}
		ids = append(ids, ph.res...)
		t = ph.end
	}
	return ids, true
}

// promise holds, for victim v if it is deadline-bound and will restart
// (suspended, migrated, requeued or unreserved), the earliest restart that
// ends by its deadline, as the queue would plan it after v's operation:
// held from now on, no queued lease and no new external lease can take it
// before the queue plans v again (planQueued gives it back first), not
// even the local leases planned later in the same pass. Queued leases
// that may give way do if they must. Nothing is held if no restart ends
// in time.
func (s *Scheduler) promise(v *victim, pre *Lease, now time.Time) {
	if !deadlineBound(v.l) || v.op == OpCancel {
		return
	}
	c, from := s.restarted(v, now)
	sp, d := s.steps(c)
	p, taken, boots, ok := s.findByDeadline(c, from, sp, d, pre, time.Time{}, now)
	if !ok {
		return
	}
	if !s.bootFor(boots, p.start, now) {
		s.giveBack(taken, time.Time{}, time.Time{}, v.l, now)
		return
	}
	ids, ok := s.reserveSteps(c, p, sp)
	if !ok {
		s.giveBack(taken, time.Time{}, time.Time{}, v.l, now)
		return
	}
	v.l.promise = ids
	s.giveBack(taken, p.start, p.start.Add(d), v.l, now)
}

// releasePromise gives back what promise held for l.
func (s *Scheduler) releasePromise(l *Lease) {
	for _, id := range l.promise {
		_ = s.table.Remove(id)
	}
	l.promise = nil
}

// findByDeadline is the earliest placement of l from from on that ends by
// its deadline (steps sp lasting total): among the reservations as they
// are, or else with the queued leases that may give way (mayGiveWay), other
// than keep, out of the way, or else with those out of the way and the
// hosts off that can be switched on in time counted too (findWithBoots:
// the hosts of the placement to switch on are returned; nothing is
// switched on yet). The plans of the queued leases are then taken, and
// returned for giveBack; when nothing ends in time they are already back.
// A placement that does not start before before (when not zero) is of no
// use to the caller: then it may report none instead (givingWayMayHelp).
func (s *Scheduler) findByDeadline(l *Lease, from time.Time, sp []stepSpec, total time.Duration, keep *Lease, before, now time.Time) (placement, map[*Lease][]phase, []slottable.HostID, bool) {
	until := l.Deadline.Add(-total)
	if until.Before(from) {
		return placement{}, nil, nil, false
	}
	if p, ok := s.findExclusive(l, from, until, total, sp); ok {
		return p, nil, nil, true
	}
	var taken map[*Lease][]phase
	if s.givingWayMayHelp(l, keep, from, until, total, before, now) {
		taken = s.takeQueued(l, keep)
		if len(taken) > 0 {
			if p, ok := s.findExclusive(l, from, until, total, sp); ok {
				return p, taken, nil, true
			}
		}
	}
	p, boots, ok := s.findWithBoots(l, from, until, total, sp, now)
	if !ok {
		s.giveBack(taken, time.Time{}, time.Time{}, l, s.now)
		return placement{}, nil, nil, false
	}
	return p, taken, boots, true
}

// givingWayMayHelp reports whether findByDeadline should take the plans
// of the queued leases that may give way to l (takeQueued) and search
// again. It says no when there are none, or when no host is off that could
// be switched on and l fits nowhere in [from, until], nor before before
// (when not zero), even with those plans left out: asked of the table as
// it is, with an Ignore that leaves them out. Left out and removed are the
// same usage, so when findExclusive would find a placement once they are
// removed, its plain search finds one as early. A deadline-bound lease
// whose plan needed the queue to give way asks at every re-plan, and
// mostly finds no earlier start: the queue's plans were taken and
// reserved again for nothing (a busy ch.3 run took 170,000 for 3
// changes). Not asked for a lease that must keep clear of hosts
// (Lease.avoid) or resume where its images are (MigrationNo), whose
// searches go otherwise.
func (s *Scheduler) givingWayMayHelp(l, keep *Lease, from, until time.Time, total time.Duration, before, now time.Time) bool {
	if s.takeAlways || len(l.avoid) > 0 || (s.cfg.Migration == MigrationNo && l.saved && len(l.prevHost) > 0) || len(s.bootable(now)) > 0 {
		return true
	}
	if !before.IsZero() {
		if !before.After(from) {
			s.giveWaySpared++
			return false
		}
		if last := before.Add(-time.Nanosecond); last.Before(until) {
			until = last
		}
	}
	gives := s.giveWayBuf[:0]
	found := false
	for _, id := range s.queue {
		q := s.leases.get(id)
		if !s.takable(q, l, keep) {
			continue
		}
		for int(q.ID) >= len(gives) {
			gives = append(gives, false)
		}
		gives[q.ID], found = true, true
	}
	defer func() {
		clear(gives)
		s.giveWayBuf = gives
	}()
	if !found {
		return false // nothing to take
	}
	_, ok := s.find(l, from, until, total, func(r slottable.Reservation) bool {
		return r.Lease < uint64(len(gives)) && gives[r.Lease]
	})
	if !ok {
		s.giveWaySpared++
	}
	return ok
}

// planByDeadline plans deadline-bound queued lease l (steps sp lasting
// total, from from on) to end by its deadline: at its earliest such
// placement among the reservations as they are, or else, if that is the
// only way, making the queued leases that have not begun give way: those
// whose plans overlap l's in time lose them and are planned again after
// it. It reports whether l got such a plan; if not, nothing changed. A
// plan that starts no earlier than was (if not zero) is not taken: l had
// one there (the caller gives it back).
func (s *Scheduler) planByDeadline(l *Lease, from time.Time, sp []stepSpec, total time.Duration, was, now time.Time) bool {
	p, taken, boots, ok := s.findByDeadline(l, from, sp, total, nil, was, now)
	if !ok {
		return false
	}
	if (!was.IsZero() && !p.start.Before(was)) || !s.bootFor(boots, p.start, now) {
		s.giveBack(taken, time.Time{}, time.Time{}, l, now)
		return false
	}
	if err := s.build(l, p, sp); err != nil {
		s.log.LeaseError(l.ID, "planning lease by its deadline", err)
		s.giveBack(taken, time.Time{}, time.Time{}, l, now)
		return false
	}
	s.giveBack(taken, p.start, l.plannedEnd(), l, now)
	if l.State != Scheduled {
		l.setState(now, Scheduled, "", "")
	}
	return true
}

// mayGiveWay reports whether queued lease q gives way to a deadline-bound
// lease: it has not begun, is external and is not deadline-bound itself.
func mayGiveWay(q *Lease) bool {
	return !q.entered && q.Req.Origin == External && !deadlineBound(q)
}

// takeQueued removes the plans of the queued leases other than l and keep
// that may give way, and returns them.
func (s *Scheduler) takeQueued(l, keep *Lease) map[*Lease][]phase {
	taken := map[*Lease][]phase{}
	for _, id := range s.queue {
		if q := s.leases.get(id); s.takable(q, l, keep) {
			taken[q] = s.takePlan(q)
		}
	}
	return taken
}

// takable reports whether takeQueued, for l (keeping keep's), takes queued
// lease q's plan: q may give way, is not lazy, and holds a plan that
// takePlan takes.
func (s *Scheduler) takable(q, l, keep *Lease) bool {
	return q != l && q != keep && mayGiveWay(q) && !s.isLazy(q) && q.State == Scheduled && len(q.plan) > 0
}

// giveBack restores the plans takeQueued took, except those overlapping
// [from, to) (none when to is zero): those leases gave way to l, are told
// so, and wait to be planned again.
func (s *Scheduler) giveBack(taken map[*Lease][]phase, from, to time.Time, l *Lease, now time.Time) {
	ids := make([]LeaseID, 0, len(taken))
	for q := range taken {
		ids = append(ids, q.ID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		q := s.leases.get(id)
		old := taken[q]
		if to.IsZero() || !old[0].start.Before(to) || !old[len(old)-1].end.After(from) {
			if !s.restorePlan(q, old) {
				s.setQueuedState(q, now)
			}
			continue
		}
		want := Queued
		if q.saved {
			want = Suspended
		}
		q.setState(now, want, ReasonDisplaced, fmt.Sprintf("gave way to lease %d, planned to end by its deadline", l.ID))
		s.dirty = true
	}
}

// passOrder is the order in which replan plans the queue: deadline-bound
// leases first, earliest deadline first (they give back what promise held
// for them, and are always planned, even without backfilling), then local
// leases (they have priority, and may preempt external ones: of those
// they unreserve, only deadline-bound ones have been planned yet in the
// pass), then the others; each group in queue order.
func (s *Scheduler) passOrder() []LeaseID {
	// The groups by a partition in queue order (each lease looked up
	// once), the deadline-bound ones then sorted stably by deadline: a
	// stable sort of the whole queue looked two leases up at every
	// comparison, 3 % of BenchmarkScaleAggressive at 24,000 leases.
	ranks := s.rankBuf[:0]
	mixed := false
	for _, id := range s.queue {
		r := uint8(passRank(s.leases.get(id)))
		ranks = append(ranks, r)
		mixed = mixed || r < 2
	}
	s.rankBuf = ranks
	order := make([]LeaseID, 0, len(s.queue))
	if !mixed {
		return append(order, s.queue...)
	}
	for r := range uint8(3) {
		from := len(order)
		for i, id := range s.queue {
			if ranks[i] == r {
				order = append(order, id)
			}
		}
		if r == 0 {
			slices.SortStableFunc(order[from:], func(a, b LeaseID) int {
				return s.leases.get(a).Deadline.Compare(s.leases.get(b).Deadline)
			})
		}
	}
	return order
}
