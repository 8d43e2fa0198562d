package scheduler

import (
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// shortRun plans a queued lease that cannot run its whole time now to run
// in the gap it has now and be suspended at the gap's end (Haizea's
// scheduling of best-effort leases in front of a reservation). It does so
// only when the lease may be suspended and the run lasts at least
// ThresholdFactor times the overheads it costs (starting or resuming, and
// suspending), so that leases do not thrash. It returns the placement and
// the steps to reserve.
func (s *Scheduler) shortRun(l *Lease, from time.Time, sp []stepSpec) (placement, []stepSpec, bool) {
	if !s.mayRunShort(l) {
		return placement{}, nil, false
	}
	return s.partialAt(l, from, sp)
}

// mayRunShort reports whether lease l may be planned to run for part of
// its time and be suspended: it may be suspended, and short runs are on
// (ThresholdFactor > 0).
func (s *Scheduler) mayRunShort(l *Lease) bool {
	return s.cfg.ThresholdFactor > 0 && s.rule.Preemptable(l) && s.suspendable(l)
}

// partialAt plans lease l to start at from and run in the longest gap it
// has there, suspended at the gap's end, when that run is at least
// ThresholdFactor times its overheads and shorter than its remaining time.
func (s *Scheduler) partialAt(l *Lease, from time.Time, sp []stepSpec) (placement, []stepSpec, bool) {
	f := s.cfg.ThresholdFactor
	suspend := s.cfg.Overheads.Suspend(s.boundMems(l))
	gap, ok := s.longestGap(l, from, prefixOf(sp)+l.Remaining+suspend)
	if !ok {
		return placement{}, nil, false
	}
	p, ok := s.find(l, from, from, gap, nil)
	if !ok {
		return placement{}, nil, false
	}
	if sameHosts(l.prevHost, p.hosts) {
		sp = withoutCopy(sp) // build leaves it out: the images are there
	}
	// On local storage the hosts found resume and suspend in parallel: as
	// long as the longest host's share, at most the bound searched with
	// (boundMems).
	sp, suspend = s.onHosts(l, sp, p.hosts), s.suspendTime(l, p.hosts)
	prefix := prefixOf(sp)
	minRun := time.Duration(f * float64(prefix+suspend))
	if minRun <= 0 {
		minRun = time.Second
	}
	if clear, _ := s.opsClear(l, p, prefix); l.saved && !clear {
		return placement{}, nil, false
	}
	// The suspension at the gap's end must not overlap other image
	// operations (suspend/resume exclusion): end the run earlier if so.
	end, clear := from.Add(gap), false
	for tries := 0; tries < 16 && !clear; tries++ {
		q := placement{start: end.Add(-suspend), hosts: p.hosts}
		if clear, _ = s.opsClear(l, q, suspend); !clear {
			end = s.opsStart(l, q, suspend)
		}
	}
	if !clear {
		return placement{}, nil, false
	}
	gap = end.Sub(from)
	run := gap - prefix - suspend
	if run < minRun || run >= l.Remaining {
		return placement{}, nil, false
	}
	var out []stepSpec
	for _, st := range sp {
		if st.kind == phRun {
			out = append(out, stepSpec{phRun, run}, stepSpec{phSuspend, suspend})
			break
		}
		out = append(out, st)
	}
	return p, out, true
}

// prefixOf is how long the steps before the run last.
func prefixOf(sp []stepSpec) time.Duration {
	var d time.Duration
	for _, st := range sp {
		if st.kind == phRun {
			break
		}
		d += st.d
	}
	return d
}

// withoutCopy is sp without its migrate step.
func withoutCopy(sp []stepSpec) []stepSpec {
	out := make([]stepSpec, 0, len(sp))
	for _, st := range sp {
		if st.kind != phMigrate {
			out = append(out, st)
		}
	}
	return out
}

// suspendable reports whether preempting l would suspend it.
func (s *Scheduler) suspendable(l *Lease) bool {
	canSuspend := s.cfg.Suspension.suspends(l.Req.VMs)
	return canSuspend && (l.Req.Class == Suspendable || l.Req.Class == Migratable)
}

// longestGap is the longest d <= limit such that the lease fits over
// [from, from+d), found by bisection over the change points.
func (s *Scheduler) longestGap(l *Lease, from time.Time, limit time.Duration) (time.Duration, bool) {
	fits := func(d time.Duration) bool {
		_, ok := s.table.EarliestFit(slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: d, From: from, Until: from})
		return ok
	}
	ends := s.table.ChangePoints(from.Add(time.Nanosecond), from.Add(limit))
	// The fit only gets worse with a longer interval: find the last change
	// point e such that [from, e) fits.
	i := sort.Search(len(ends), func(i int) bool { return !fits(ends[i].Sub(from)) })
	if i == 0 {
		return 0, false
	}
	return ends[i-1].Sub(from), true
}
