package scheduler

import (
	"time"

	"github.com/bora-sched/bora/slottable"
)

// keepDeadlinePlan is replanPass's way for a queued deadline-bound lease
// (a preempted migratable deadline lease, planned again at every pass)
// whose plan would be taken, searched again and restored as it was: that
// happens when findByDeadline's first search (findExclusive, on the table
// without the plan) finds a start no earlier than the plan's, or when the
// lease cannot end by its deadline from its earliest start. Then the plan
// stays where it is and only what taking and restoring it would change
// is changed: its reservations get the IDs that removing and adding them
// again would (Renumber), its gen moves on by three (takePlan's unplan,
// replanPass's, restorePlan), and it is woken at its start. It reports
// whether it did; otherwise only the lease's fit memo (which stays true)
// and prevHost (as planQueued sets it) have changed, and the caller plans
// the lease the usual way.
//
// It applies where planQueued would do nothing else on that way: no lazy
// plans (no search amid them, none dropped where the plan is restored), no
// promise to release, not planned from scratch, no hosts to avoid or to
// resume on, and a plan whose reservations are as restorePlan would lay
// them out (one per distinct host of each phase, in that order, over the
// phase).
func (s *Scheduler) keepDeadlinePlan(l *Lease, now time.Time) bool {
	if s.noDeadlineKeep || !deadlineBound(l) || s.lazyN > 0 || l.State != Scheduled || l.entered || l.cur != 0 || len(l.plan) == 0 ||
		l.promise != nil || l.fromScratch || len(l.avoid) > 0 {
		return false
	}
	l.noteImages() // as planQueued
	if s.cfg.Migration == MigrationNo && l.saved && len(l.prevHost) > 0 {
		return false
	}
	for i := range l.plan {
		if !s.laidOut(&l.plan[i]) {
			return false
		}
	}
	sp, total := s.steps(l)
	from := s.earliestFor(l, now)
	if until := l.Deadline.Add(-total); !until.Before(from) && !s.noEarlierFit(l, from, until, total, sp, l.plan[0].start) {
		return false
	}
	l.gen += 3
	for i := range l.plan {
		_ = s.table.RenumberAll(l.plan[i].res) // laidOut checked each is there
	}
	l.after = afterOf(l.plan)
	s.push(l, l.plan[0].start)
	s.deadlineKept++
	return true
}

// laidOut reports whether phase ph's reservations are those reserve would
// make: one on each distinct host of ph.hosts, in the order of their first
// VMs, each over [ph.start, ph.end).
func (s *Scheduler) laidOut(ph *phase) bool {
	var buf [16]slottable.HostID
	order := appendDistinct(buf[:0], ph.hosts)
	if len(order) != len(ph.res) {
		return false
	}
	for i, h := range order {
		if !s.table.ReservedAs(ph.res[i], h, ph.start, ph.end) {
			return false
		}
	}
	return true
}

// noEarlierFit reports whether findExclusive(l, from, until, d, sp), on
// the table without l's reservations, would find a placement, and one
// starting at was or later. It asks the questions findExclusive would
// (clearOfOps: find's, then whether the placement is clear of image
// operations), with l's reservations left out rather than removed: find
// is EarliestFitWithout, and the hosts busy at its start are those busy
// with other leases'. It stops at a start before was.
func (s *Scheduler) noEarlierFit(l *Lease, from, until time.Time, d time.Duration, sp []stepSpec, was time.Time) bool {
	own := func(r slottable.Reservation) bool { return r.Lease == l.ID }
	p, ok := s.clearOfOps(l, from, until, sp, func(from time.Time) (placement, bool) {
		q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: d, From: from, Until: until}
		fit, ok := s.table.EarliestFitWithout(q, l.ID, &l.fit)
		if !ok || fit.Start.Before(was) {
			return placement{}, false // none, or an earlier start: planned the usual way
		}
		opts, _ := s.options(l, fit, d, false, own)
		return placement{start: fit.Start, hosts: s.mapper(opts, l.Req.VMs)}, true
	})
	return ok && !p.start.Before(was) // later searches start later
}
