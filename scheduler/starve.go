package scheduler

import (
	"slices"
	"time"
)

// starved reports whether queued lease l has waited MaxHeadDelay or
// longer under aggressive backfilling (docs/models.md §3, starvation
// bound): since it was submitted if it never started, else since it was
// last suspended. Such a lease is planned before the other queued leases
// (after the deadline-bound ones), so that it is the head that holds one
// of the MaxReservations reservations, and that reservation is no longer
// dropped when an advance
// reservation or deadline lease is accepted (unplanQueue) nor taken by
// preemption (candidates): later requests are placed around it, or
// rejected when they cannot be.
func (s *Scheduler) starved(l *Lease, now time.Time) bool {
	d := s.cfg.MaxHeadDelay
	if d <= 0 || s.cfg.Backfilling != BackfillAggressive || !l.queued || l.entered || deadlineBound(l) {
		return false
	}
	return !now.Before(waitingSince(l).Add(d))
}

// waitingSince is when queued lease l began its current wait: its
// submission, or its last suspension if it has run.
func waitingSince(l *Lease) time.Time {
	if l.FirstStart.IsZero() {
		return l.Submitted
	}
	for i := len(l.History) - 1; i >= 0; i-- {
		if l.History[i].State == Suspended {
			return l.History[i].At
		}
	}
	return l.Submitted
}

// starvedFirst moves the starved leases of order to its front, after the
// deadline-bound ones, longest-waiting first; the others keep their order.
func (s *Scheduler) starvedFirst(order []LeaseID, now time.Time) []LeaseID {
	if s.cfg.MaxHeadDelay <= 0 || s.cfg.Backfilling != BackfillAggressive {
		return order
	}
	var bound, starved, rest []LeaseID
	for _, id := range order {
		l := s.leases.get(id)
		switch {
		case deadlineBound(l):
			bound = append(bound, id)
		case s.starved(l, now):
			starved = append(starved, id)
		default:
			rest = append(rest, id)
		}
	}
	if len(starved) == 0 {
		return order
	}
	slices.SortStableFunc(starved, func(a, b LeaseID) int {
		return waitingSince(s.leases.get(a)).Compare(waitingSince(s.leases.get(b)))
	})
	return append(append(bound, starved...), rest...)
}
