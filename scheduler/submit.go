package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Submit takes in a request at time now and decides at once: immediate,
// advance-reservation and deadline leases are accepted (scheduled, perhaps
// by preempting others) or rejected; best-effort leases are queued. The
// returned lease is the scheduler's own (read it, do not change it).
func (s *Scheduler) Submit(now time.Time, req Request) (*Lease, []Action) {
	s.setNow(now)
	s.run(now)
	l := &Lease{ID: s.nextID, Req: req, Submitted: now, Ops: map[Operation]int{}}
	s.nextID++
	s.leases.set(l)
	s.ids = append(s.ids, l.ID)
	l.setState(now, Pending, "", "")
	if err := req.ValidateAt(s.epoch); err != nil {
		s.reject(l, now, ReasonInvalid, err.Error())
		return l, s.flush()
	}
	l.Ready = s.At(req.ReadyTime())
	if req.Kind == AdvanceReservation && l.Ready.Before(now) {
		s.reject(l, now, ReasonStartPassed, fmt.Sprintf("its start %s has passed", FormatTime(s.At(req.Start))))
		return l, s.flush()
	}
	if l.Ready.Before(now) {
		l.Ready = now
	}
	if req.Deadline > 0 {
		l.Deadline = s.At(req.Deadline)
	}
	l.Remaining = req.Duration
	if !s.everFits(l) {
		s.reject(l, now, ReasonTooLarge, fmt.Sprintf("%d VMs of %s and %d MB each never fit on this cluster", req.VMs, Cores(req.CPU), req.Memory))
		return l, s.flush()
	}
	if req.Kind == BestEffort {
		s.enqueue(l, now)
	} else {
		s.placeFixed(l, now)
	}
	s.run(now)
	return l, s.flush()
}

func (s *Scheduler) reject(l *Lease, now time.Time, r Reason, detail string) {
	l.setState(now, Rejected, r, detail)
	s.log.Debug(detail, map[string]any{"lease_id": l.ID, "reason": string(r)})
}

// everFits reports whether the lease fits on an empty cluster.
func (s *Scheduler) everFits(l *Lease) bool {
	per := l.Per()
	n := 0
	for h := range s.table.NumHosts() { // capacities read in place (Hosts copies them)
		k := -1
		for d, need := range per {
			if need <= 0 {
				continue
			}
			if c := int(s.table.Capacity(slottable.HostID(h), d) / need); k < 0 || c < k {
				k = c
			}
		}
		if k < 0 {
			return true
		}
		if n += k; n >= l.Req.VMs {
			return true
		}
	}
	return false
}

// enqueue puts a best-effort lease at the tail of the queue and plans it
// (the leases ahead of it keep their plans: nothing was freed).
func (s *Scheduler) enqueue(l *Lease, now time.Time) {
	exact := s.exactNow(now)
	l.setState(now, Queued, "", "")
	s.queue = append(s.queue, l.ID)
	l.queued = true
	if s.cfg.WakeUp > 0 || s.dirty {
		s.dirty = true
		return
	}
	held, blocked := 0, false
	for _, id := range s.queue[:len(s.queue)-1] {
		q := s.leases.get(id)
		if q.State == Scheduled && !deadlineBound(q) {
			held++
		} else if q.State == Queued || q.State == Suspended {
			blocked = true
		}
	}
	if s.cfg.Backfilling == BackfillNone && blocked {
		return
	}
	mark := s.table.FreedMark()
	planned := s.planQueued(l, now, held < s.cfg.reservationsAllowed(), time.Time{})
	if planned {
		s.checkDeadline(l, now)
	}
	if l.Req.Origin != Local && !deadlineBound(l) {
		// Last in passOrder: no lease behind it held a plan.
		s.noteBound(l, now, mark, planned)
	}
	// Planned last in passOrder on the table with every other plan, as
	// from scratch (exact.go).
	s.noteExact(false, exact, passRank(l) == 2 || len(s.queue) == 1)
}

// earliest is the earliest time anything new may be planned to start.
func (s *Scheduler) earliest(now time.Time) time.Time {
	return now.Add(s.cfg.NonSchedulable)
}

// earliestFor is the earliest start of queued lease l planned at now:
// earliest, or its ready time if later.
func (s *Scheduler) earliestFor(l *Lease, now time.Time) time.Time {
	from := s.earliest(now)
	if l.Ready.After(from) {
		from = l.Ready
	}
	return from
}

// planQueued plans a queued lease: it starts now if it fits, or (when
// mayReserve) holds a reservation at its earliest fit. It reports whether
// the lease got a plan (the caller flags a missed deadline once it keeps
// it). was, when not zero, is the start of the plan the lease had, which
// the caller gives back if the new one starts later: it preempts, or makes
// queued leases give way, only to start before it.
func (s *Scheduler) planQueued(l *Lease, now time.Time, mayReserve bool, was time.Time) bool {
	s.releasePromise(l) // it is planned now: what was held for it is free for it
	l.noteImages()
	sp, total := s.steps(l)
	from := s.earliestFor(l, now)
	if deadlineBound(l) {
		if s.planByDeadline(l, from, sp, total, was, now) {
			return true
		}
		if !was.IsZero() {
			return false // the plan it had is as good: the caller gives it back
		}
		mayReserve = true // late already: as early as it can be
	}
	until := from
	if mayReserve {
		until = time.Time{}
	}
	p, ok := s.findExclusive(l, from, until, total, sp)
	if !ok || p.start.After(from) {
		// It cannot start now: a local lease takes the machines it needs
		// from external ones.
		if s.preemptQueued(l, from, total, sp, p, ok, was, now) {
			return true
		}
		// Perhaps it can run for part of its time.
		if short, sp2, ok2 := s.shortRun(l, from, sp); ok2 {
			p, sp, ok = short, sp2, true
		} else if mayReserve {
			// Or for part of its time in a gap before its whole time fits.
			if fut, sp2, ok2 := s.futureRun(l, from, sp, p, ok); ok2 {
				p, sp, ok = fut, sp2, true
			}
		}
	}
	if !ok {
		s.setQueuedState(l, now)
		return false
	}
	if err := s.build(l, p, sp); err != nil {
		s.log.LeaseError(l.ID, "planning queued lease", err)
		s.setQueuedState(l, now)
		return false
	}
	if l.State != Scheduled {
		l.setState(now, Scheduled, "", "")
	}
	return true
}

// planQueuedScratch is planQueued for replanPass: a lease that
// unplanQueue dropped searches from the memo of its last plan from
// scratch (Lease.scratch), which gives the same answers as its latest
// memo (any memo does) with less to search.
func (s *Scheduler) planQueuedScratch(l *Lease, now time.Time, mayReserve bool, was time.Time) bool {
	if !l.fromScratch {
		return s.planQueued(l, now, mayReserve, was)
	}
	l.fromScratch = false
	if s.table.Holds(&l.scratch) {
		l.fit = l.scratch
	}
	if s.table.MemoAge(&l.fit) > scratchMemoReach {
		l.fit = slottable.FitMemo{} // searched from nothing: see scratchMemoReach
	}
	mark := s.table.FreedMark()
	planned := s.planQueued(l, now, mayReserve, was)
	l.scratch = l.fit
	s.noteBound(l, now, mark, planned)
	return planned
}

func (s *Scheduler) setQueuedState(l *Lease, now time.Time) {
	want := Queued
	if l.saved {
		want = Suspended
	}
	if l.State != want {
		l.setState(now, want, "", "")
	}
}

// checkDeadline notes a deadline the lease's new plan will miss.
func (s *Scheduler) checkDeadline(l *Lease, now time.Time) {
	if !l.Deadline.IsZero() && l.plannedEnd().After(l.Deadline) && l.Reason != ReasonDeadlineMissed {
		l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonDeadlineMissed,
			Detail: fmt.Sprintf("planned to end at %s, after its deadline", FormatTime(l.plannedEnd()))})
		l.Reason, l.Detail = ReasonDeadlineMissed, "planned end after deadline"
		l.DeadlineMissed = true
	}
}

// replan plans the queue again in order (passOrder: deadline-bound leases,
// then local ones, then the others), each lease moving earlier if it
// can: a lease that holds a reservation gives it up only for an earlier
// start, and otherwise gets it back as it was. Leases ahead of it are
// planned while it still holds its reservation, so they cannot take it:
// when capacity is freed no queued lease starts later than it was planned
// (conservative backfilling's compression), unless a local lease preempts
// it or a deadline-bound lease makes it give way. After an advance
// reservation or deadline lease is accepted, the queued leases'
// reservations were dropped first (unplanQueue), and they may move later
// to make room.
//
// fromScratch says that the queue gave way since the last re-plan
// (deferQueue): the first pass plans it from scratch. The note that
// the plans are those from scratch (exact.go) is made or kept when no
// pass that must change nothing changes a reservation.
func (s *Scheduler) replan(now time.Time, fromScratch bool) {
	s.stats.Replans++
	held := !fromScratch && s.exactNow(now)
	quiet := true
	// A pass that preempts (a local lease unreserving queued leases) or
	// makes leases give way leaves leases to plan: another pass does.
	for pass := 0; pass < 4; pass++ {
		s.dirty = false
		mark, edits := s.table.FreedMark(), s.edits
		s.replanPass(now)
		if (pass > 0 || !fromScratch) && !s.quiet(mark, edits, now) {
			quiet = false
		}
		if !s.dirty {
			break
		}
	}
	s.noteExact(fromScratch, held && s.exact, quiet && !s.dirty)
}

// replanPass plans the queue once, in passOrder.
func (s *Scheduler) replanPass(now time.Time) {
	defer s.dropLazy() // those not reached (BackfillNone): unplanned
	held, allowed := 0, s.cfg.reservationsAllowed()
	defer func() { s.amid = false }()
	st := settling{on: s.settle} // the plans from scratch are known (exact.go)
	s.settle = false
	for _, id := range s.starvedFirst(s.passOrder(), now) {
		s.amid = false
		l := s.leases.get(id)
		if l.entered || !l.queued {
			continue
		}
		if s.settleNext(&st, l, now, held < allowed) {
			s.checkDeadline(l, now)
			if l.PlannedStart().After(now) {
				held++
			}
			continue
		}
		if s.lazyN > 0 {
			if s.isLazy(l) && !st.tried && s.keepLazy(l, now, held < allowed) {
				s.checkDeadline(l, now)
				if l.PlannedStart().After(now) {
					held++
				}
				continue
			}
			if s.amidFor(l) {
				s.amid = true
			} else {
				s.dropLazy() // from here on, planned from scratch as usual
			}
		}
		if s.keepPlan(l, now) { // the plan it would get again is the one it has
			s.checkDeadline(l, now)
			if l.PlannedStart().After(now) {
				held++
			}
			continue
		}
		if s.keepDeadlinePlan(l, now) { // it would be taken and restored as it was
			s.checkDeadline(l, now)
			continue
		}
		old := s.takePlan(l)
		var was time.Time
		if old != nil {
			was = old[0].start
		}
		planned := s.planQueuedScratch(l, now, held < allowed || old != nil, was)
		if old != nil && (!planned || l.PlannedStart().After(old[0].start)) {
			s.unplan(l)
			planned = s.restorePlan(l, old)
		}
		if !planned {
			if s.cfg.Backfilling == BackfillNone {
				return
			}
			continue
		}
		s.checkDeadline(l, now) // the plan it keeps
		if l.PlannedStart().After(now) && !deadlineBound(l) {
			held++
		}
	}
}

// takePlan removes a queued lease's plan that has not begun and returns
// its phases (nil when it had none).
func (s *Scheduler) takePlan(l *Lease) []phase {
	if l.State != Scheduled || l.entered || len(l.plan) == 0 {
		return nil
	}
	old := make([]phase, len(l.plan))
	for i, p := range l.plan {
		old[i] = phase{kind: p.kind, start: p.start, end: p.end, hosts: p.hosts}
	}
	after := l.after
	s.unplan(l)
	l.after = after
	return old
}

// restorePlan reserves phases again exactly as they were.
func (s *Scheduler) restorePlan(l *Lease, old []phase) bool {
	l.gen++
	l.plan, l.cur, l.entered = l.plan[:0], 0, false
	for _, p := range old {
		ph := p
		if err := s.reserve(l, &ph); err != nil {
			s.log.LeaseError(l.ID, "restoring reservation", err)
			s.unplan(l)
			return false
		}
		l.plan = append(l.plan, ph)
	}
	l.after = afterOf(old)
	s.push(l, l.plan[0].start)
	return true
}

// afterOf is what follows a queued lease's plan: a plan ends in a
// suspension only when it is a short run; what a discarded plan said
// does not matter.
func afterOf(plan []phase) afterKind {
	if len(plan) > 0 && plan[len(plan)-1].kind == phSuspend {
		return afterSuspend
	}
	return afterDone
}

// placeFixed decides an immediate, advance-reservation or deadline lease.
func (s *Scheduler) placeFixed(l *Lease, now time.Time) {
	sp, total := s.steps(l)
	from, until := l.Ready, l.Ready
	switch l.Req.Kind {
	case Immediate:
		from, until = now, now
	case AdvanceReservation:
		if l.Ready.Before(s.earliest(now)) {
			s.reject(l, now, ReasonTooSoon, fmt.Sprintf("starts within the non-schedulable interval of %s", s.cfg.NonSchedulable))
			return
		}
	case Deadline:
		if e := s.earliest(now); from.Before(e) {
			from = e
		}
		until = l.Deadline.Add(-total)
		if until.Before(from) {
			s.reject(l, now, ReasonDeadlineInterval, "cannot run its duration before its deadline")
			return
		}
	}
	// Queued leases that have not begun give way: they are planned again
	// after this lease, lazily (lazyplan.go); refused with nothing
	// changed, when their plans are known to be those from scratch, they
	// keep them (exact.go).
	exact, mark, edits := s.exactNow(now), s.table.FreedMark(), s.edits
	s.deferQueue()
	lazy := s.lazyN
	defer func() {
		s.dirty = true
		s.settleAfter(l, exact, mark, edits, lazy, now)
	}()
	if p, ok := s.findFixed(l, from, until, total); ok {
		s.accept(l, p, sp, now)
		return
	}
	// Accepted deadline leases that have not started move within their
	// own intervals if that makes room (deadlinemove.go).
	if s.moveDeadlines(l, from, until, total, sp, now) {
		l.setState(now, Scheduled, "", "")
		return
	}
	if l.Req.Kind == Immediate {
		s.placeImmediate(l, total, sp, now) // bootwait.go
		return
	}
	if !s.rule.Preempts(l) {
		r, detail := ReasonNoCapacity, "no room in its interval"
		if l.Req.Kind == Deadline {
			r, detail = s.deadlineRefusal(l, from, until, total, now)
		}
		s.reject(l, now, r, detail)
		return
	}
	s.preemptFor(l, from, until, total, sp, now)
}

// deadlineRefusal says which of the two cases refuses deadline lease l
// (starting in [from, until], lasting total), which fits nowhere even
// moving the accepted deadline leases: its interval cannot hold it even
// with those leases out of the way (ReasonDeadlineInterval), or it can,
// but no re-plan fits them all (ReasonDeadline).
func (s *Scheduler) deadlineRefusal(l *Lease, from, until time.Time, total time.Duration, now time.Time) (Reason, string) {
	e := s.earliest(now)
	movable := func(r slottable.Reservation) bool {
		q := s.leases.get(LeaseID(r.Lease))
		return s.lazyPlan(r) || q != nil && movableDeadline(q, e)
	}
	if _, ok := s.find(l, from, until, total, movable); ok {
		return ReasonDeadline, "no room in its interval, even moving the accepted deadline leases there within their own deadlines"
	}
	return ReasonDeadlineInterval, "no room in its interval, even with the accepted deadline leases out of it"
}

func (s *Scheduler) accept(l *Lease, p placement, sp []stepSpec, now time.Time) {
	if err := s.build(l, p, sp); err != nil {
		s.reject(l, now, ReasonNoCapacity, err.Error())
		return
	}
	l.setState(now, Scheduled, "", "")
}

// unplanQueue drops the plans of queued leases that have not begun, except
// those that must end by their deadline (deadline.go): they keep theirs,
// as fixed leases do.
func (s *Scheduler) unplanQueue() {
	for _, id := range s.queue {
		l := s.leases.get(id)
		if l.State == Scheduled && !l.entered && !deadlineBound(l) && !s.starved(l, s.now) {
			s.unplan(l)
			l.fromScratch, s.fromScratch = true, true
		}
	}
}

// Finished tells the scheduler that lease id's VMs ended on their own at
// now (before the end of their reservation). The capacity they free is
// planned again.
func (s *Scheduler) Finished(now time.Time, id LeaseID) []Action {
	s.setNow(now)
	s.run(now)
	l := s.leases.get(id)
	if l == nil || l.State != Running || !l.entered || l.plan[l.cur].kind != phRun {
		return s.flush()
	}
	s.voidPending(l, now, "it ended on its own first")
	hosts := l.plan[l.cur].hosts
	// The shutdown holds only what the lease had reserved: it ends by the
	// end of its plan (a preemption may already have cut it short).
	limit := l.plannedEnd()
	s.cut(l, now)
	l.after = afterDone
	if sd := s.cfg.Overheads.Shutdown; sd > 0 {
		end := now.Add(sd)
		if end.After(limit) {
			end = limit
		}
		if err := s.appendPhase(l, phShutdown, now, end, hosts); err != nil {
			s.log.LeaseError(id, "reserving shutdown", err)
		}
	}
	s.dirty = true
	s.step(l, now)
	s.run(now)
	return s.flush()
}

// Cancel ends lease id at now on a user's request.
func (s *Scheduler) Cancel(now time.Time, id LeaseID) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	l := s.leases.get(id)
	if l == nil {
		return nil, fmt.Errorf("lease %d: %w", id, ErrUnknownLease)
	}
	if l.State.Terminal() {
		return nil, fmt.Errorf("lease %d is %s: %w", id, l.State, ErrLeaseOver)
	}
	s.voidPending(l, now, "it was cancelled first")
	if l.entered {
		s.emit(Action{At: now, Lease: id, Hosts: l.plan[l.cur].hosts}, ActStop)
	}
	s.cut(l, now)
	for i := l.cur; i < len(l.plan); i++ {
		s.release(l, &l.plan[i])
	}
	l.plan, l.cur, l.entered = nil, 0, false
	l.gen++
	s.removeFromQueue(id)
	l.setState(now, Cancelled, ReasonCancelledByUser, "")
	s.dirty = true
	s.run(now)
	return s.flush(), nil
}

// noteImages sets prevHost, for a lease whose images are saved, to the
// hosts they are on (its VMs' last hosts), as planning it reads them. A
// count that holds already is kept: it is asked at every planning of a
// preempted lease, and a new map each time was 4 % of BenchmarkScaleAggressive
// at 24,000 leases.
func (l *Lease) noteImages() {
	if l.saved && len(l.Hosts) > 0 && !sameHosts(l.prevHost, l.Hosts) {
		l.prevHost = hostsOf(l.Hosts)
	}
}

// hostsOf counts the VMs of a placement per host.
func hostsOf(hosts []slottable.HostID) map[slottable.HostID]int {
	m := make(map[slottable.HostID]int, len(hosts))
	for _, h := range hosts {
		m[h]++
	}
	return m
}
