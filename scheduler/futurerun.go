package scheduler

import "time"

// futureRun plans a queued lease that may hold a reservation, and whose
// whole time fits no earlier than full (fullOK false: nowhere), to run for
// part of its time in an earlier gap: it starts (or resumes) at the
// earliest time before full.start at which it fits for at least its
// minimum useful run, runs to the end of the longest gap it has there and
// is suspended before that gap ends; the rest of its time is planned when
// it is back in the queue, suspended (Haizea's best-effort scheduling "in
// the future", docs/models.md §3). The resumption and the suspension are
// reserved like the run, from the overhead model. A lease gets one only
// under aggressive backfilling (one of the MaxReservations leases that
// hold a reservation), when short runs are on (ThresholdFactor > 0) and
// FuturePartialRuns is set, if it may be suspended and is not bound to a
// deadline. The minimum
// useful run is what a short run needs: ThresholdFactor times the
// overheads it costs (starting or resuming, and suspending).
func (s *Scheduler) futureRun(l *Lease, from time.Time, sp []stepSpec, full placement, fullOK bool) (placement, []stepSpec, bool) {
	if !s.cfg.FuturePartialRuns || s.cfg.Backfilling != BackfillAggressive || !s.mayRunShort(l) || l.Req.Kind == Deadline {
		return placement{}, nil, false
	}
	suspend := s.cfg.Overheads.Suspend(s.boundMems(l))
	prefix := prefixOf(sp)
	minRun := time.Duration(s.cfg.ThresholdFactor * float64(prefix+suspend))
	if minRun <= 0 {
		minRun = time.Second
	}
	need := prefix + minRun + suspend
	var until time.Time
	if fullOK {
		until = full.start
	}
	// The searches below are for another duration: they leave the lease's
	// memo of its whole-time search as it was.
	memo := l.fit
	defer func() { l.fit = memo }()
	t := from
	for tries := 0; tries < 32; tries++ {
		p, ok := s.find(l, t, until, need, nil)
		if !ok || fullOK && !p.start.Before(full.start) {
			return placement{}, nil, false
		}
		// At from, shortRun has already been asked.
		if p.start.After(from) {
			if q, out, ok := s.partialAt(l, p.start, sp); ok {
				return q, out, true
			}
		}
		next, ok := s.table.NextChangeAfter(p.start)
		if !ok {
			return placement{}, nil, false
		}
		t = next
	}
	return placement{}, nil, false
}
