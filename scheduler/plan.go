package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// step of a plan before it is laid out in time.
type stepSpec struct {
	kind phaseKind
	d    time.Duration
}

// steps is what lease l needs reserved from its next start: starting or
// resuming (copying first when it migrates), its remaining run, and the
// shutdown.
func (s *Scheduler) steps(l *Lease) ([]stepSpec, time.Duration) {
	return s.stepsInto(make([]stepSpec, 0, 4), l) // at most: migrate or prepare, resume, run, shut down
}

// stepsInto is steps, appended to sp.
func (s *Scheduler) stepsInto(sp []stepSpec, l *Lease) ([]stepSpec, time.Duration) {
	o := s.cfg.Overheads
	if l.saved {
		if l.migrate && s.cfg.Migration == MigrationYes {
			sp = append(sp, stepSpec{phMigrate, o.Copy(l.mems())})
		}
		sp = append(sp, stepSpec{phResume, o.Resume(s.boundMems(l))})
	} else if o.Enactment > 0 {
		sp = append(sp, stepSpec{phPrepare, o.Enactment})
	}
	sp = append(sp, stepSpec{phRun, l.Remaining})
	if o.Shutdown > 0 {
		sp = append(sp, stepSpec{phShutdown, o.Shutdown})
	}
	var total time.Duration
	for _, st := range sp {
		total += st.d
	}
	return sp, total
}

// placement is where and when a lease's plan starts.
type placement struct {
	start time.Time
	hosts []slottable.HostID // one per VM
}

// find looks for the earliest placement of lease l starting in
// [from, until] (until zero: no limit) lasting d, with the reservations
// ignore reports true for treated as gone where VMs fit (a host they
// occupy at the start is still busy for the mapper).
func (s *Scheduler) find(l *Lease, from, until time.Time, d time.Duration, ignore func(slottable.Reservation) bool) (placement, bool) {
	return s.findIgnoring(l, from, until, d, ignore, nil)
}

// findIgnoring is find; the reservations busyIgnore reports true for do
// not make a host busy either.
func (s *Scheduler) findIgnoring(l *Lease, from, until time.Time, d time.Duration, ignore, busyIgnore func(slottable.Reservation) bool) (placement, bool) {
	amid := s.amid && s.lazyN > 0
	if amid {
		// On the table without the lazy plans (lazyplan.go). Its memo is
		// not about that table.
		l.fit = slottable.FitMemo{}
		busyIgnore = s.orLazy(busyIgnore)
	}
	q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: d, From: from, Until: until, Ignore: ignore, SkipHidden: amid}
	restrict := s.cfg.Migration == MigrationNo && l.saved && len(l.prevHost) > 0
	if restrict {
		q.Hosts = func(h slottable.HostID) bool { return l.prevHost[h] > 0 }
	} else if len(l.avoid) > 0 {
		// Migrated by an admin: other hosts if they ever hold it.
		q.Hosts = func(h slottable.HostID) bool { return l.avoid[h] == 0 }
		if _, ok := s.table.EarliestFit(q); !ok {
			q.Hosts = nil
		}
	}
	for tries := 0; tries < 64; tries++ {
		// The same answer as EarliestFit(q), faster when l was searched for
		// before and little capacity was freed since.
		fit, ok := s.table.EarliestFitMemo(q, uint64(l.ID), &l.fit)
		if !ok {
			return placement{}, false
		}
		opts, total := s.options(l, fit, d, restrict, busyIgnore)
		if total >= l.Req.VMs {
			return placement{start: fit.Start, hosts: s.mapper(opts, l.Req.VMs)}, true
		}
		next, ok := s.table.NextChangeAfter(fit.Start)
		if !ok || (!until.IsZero() && next.After(until)) {
			return placement{}, false
		}
		q.From = next
	}
	return placement{}, false
}

// options turns a fit into the mapper's host options, capping each host at
// the VMs the lease had there when it must resume on the same hosts. A
// host is busy when it holds some CPU at the fit's start, in reservations
// ignore (when not nil) does not leave out.
func (s *Scheduler) options(l *Lease, fit slottable.Fit, d time.Duration, restrict bool, ignore func(slottable.Reservation) bool) ([]HostOption, int) {
	opts := s.optBuf[:0] // the mapper's input only
	total := 0
	used := s.usedBuf
	for _, c := range fit.Counts {
		n := c.Count
		if restrict {
			n = min(n, l.prevHost[c.Host])
		}
		if n <= 0 {
			continue
		}
		if ignore == nil {
			used = s.table.UsedInto(used, c.Host, fit.Start, fit.Start.Add(time.Nanosecond))
		} else {
			used = s.table.UsedIgnoring(c.Host, fit.Start, fit.Start.Add(time.Nanosecond), ignore)
		}
		busy := used[slottable.CPU] > 0
		opts = append(opts, HostOption{Host: c.Host, Count: n, Busy: busy})
		total += n
	}
	s.optBuf, s.usedBuf = opts, used
	return opts, total
}

// build lays out lease l's steps from p.start on p.hosts and reserves them.
func (s *Scheduler) build(l *Lease, p placement, sp []stepSpec) error {
	s.edits++ // a new plan (exact.go)
	l.gen++
	l.plan, l.cur, l.entered = l.plan[:0], 0, false
	l.after = afterDone
	// A new plan: any earlier preemption is over (or was taken back).
	l.pending, l.preemptPending = nil, false
	if len(sp) > 0 && sp[len(sp)-1].kind == phSuspend {
		l.after = afterSuspend // a short run: suspended at the end of its gap
	}
	t := p.start
	same := sameHosts(l.prevHost, p.hosts)
	for _, st := range s.onHosts(l, sp, p.hosts) { // local storage: per-host times

		if st.d <= 0 || (st.kind == phMigrate && same) {
			continue // nothing to copy when it resumes where it was
		}
		ph := phase{kind: st.kind, start: t, end: t.Add(st.d), hosts: p.hosts}
		if err := s.reserve(l, &ph); err != nil {
			s.unplan(l)
			return err
		}
		l.plan = append(l.plan, ph)
		t = ph.end
	}
	if len(l.plan) > 0 {
		s.push(l, l.plan[0].start)
	}
	return nil
}

// reserve adds one reservation per distinct host of phase ph.
func (s *Scheduler) reserve(l *Lease, ph *phase) error {
	var buf [16]slottable.HostID
	order := appendDistinct(buf[:0], ph.hosts)
	var count map[slottable.HostID]int64
	if len(order) > 16 {
		count = make(map[slottable.HostID]int64, len(order))
		for _, h := range ph.hosts {
			count[h]++
		}
	}
	d := s.table.Dims()
	res := slices.Grow(s.resBuf[:0], d)[:d] // the table keeps its own copy
	s.resBuf = res
	if ph.res == nil {
		ph.res = make([]slottable.ResID, 0, len(order))
	}
	for _, h := range order {
		n := count[h]
		if count == nil {
			for _, x := range ph.hosts {
				if x == h {
					n++
				}
			}
		}
		clear(res)
		res[0], res[1] = l.Req.CPU*n, l.Req.Memory*n
		if s.lazyN > 0 {
			s.dropLazyIn(l, h, ph.start, ph.end, res) // those in its way (lazyplan.go)
		}
		id, err := s.table.Add(slottable.Reservation{Lease: l.ID, Host: h, Kind: ph.kind.slot(),
			Start: ph.start, End: ph.end, Res: res})
		if err != nil {
			for _, r := range ph.res {
				_ = s.table.Remove(r)
			}
			ph.res = nil
			return fmt.Errorf("lease %d: reserving %s on host %d: %w", l.ID, ph.kind, h, err)
		}
		ph.res = append(ph.res, id)
	}
	return nil
}

// unplan drops every reservation of lease l that has not begun; a phase in
// progress is kept.
func (s *Scheduler) unplan(l *Lease) {
	keep := 0
	if l.entered {
		keep = l.cur + 1
	}
	for i := keep; i < len(l.plan); i++ {
		for _, id := range l.plan[i].res {
			_ = s.table.Remove(id)
		}
	}
	l.plan = l.plan[:min(keep, len(l.plan))]
	l.gen++
	if keep > 0 {
		s.push(l, l.plan[l.cur].end)
	}
}

// cut shortens the phase lease l is in (or the run phase that contains at)
// so that it ends at at, and drops every phase after it. Phases that have
// not begun by at are dropped.
func (s *Scheduler) cut(l *Lease, at time.Time) {
	s.releasePromise(l) // whatever happens to it now, the restart held for it is not that
	i := l.cur
	for i < len(l.plan) && !l.plan[i].end.After(at) {
		i++
	}
	// Phases from i on end after at: shorten the one that has begun by at,
	// drop the rest.
	last := i
	begun := i < len(l.plan) && i == l.cur && l.entered
	if i < len(l.plan) && begun && !l.plan[i].start.Before(at) {
		// It begins right now: keep it, empty, so that it ends at once.
		for _, id := range l.plan[i].res {
			_ = s.table.Remove(id)
		}
		l.plan[i].res, l.plan[i].end = nil, at
		last = i + 1
	} else if i < len(l.plan) && l.plan[i].start.Before(at) {
		ph := &l.plan[i]
		for _, id := range ph.res {
			if err := s.table.SetEnd(id, at); err != nil {
				s.log.LeaseError(l.ID, "shortening reservation", err)
			}
		}
		ph.end = at
		last = i + 1
	}
	for j := last; j < len(l.plan); j++ {
		for _, id := range l.plan[j].res {
			_ = s.table.Remove(id)
		}
	}
	l.plan = l.plan[:last]
	l.gen++
	if l.cur < len(l.plan) {
		if l.entered {
			s.push(l, l.plan[l.cur].end)
		} else {
			s.push(l, l.plan[l.cur].start)
		}
	}
}

// appendPhase adds a phase of kind k over [from, to) on hosts to the end of
// lease l's plan.
func (s *Scheduler) appendPhase(l *Lease, k phaseKind, from, to time.Time, hosts []slottable.HostID) error {
	if !to.After(from) {
		return nil
	}
	ph := phase{kind: k, start: from, end: to, hosts: hosts}
	s.edits++ // a longer plan (exact.go)
	if err := s.reserve(l, &ph); err != nil {
		return err
	}
	l.plan = append(l.plan, ph)
	if l.cur == len(l.plan)-1 && !l.entered {
		s.push(l, from)
	}
	return nil
}

// runPhase returns the index of the run phase of l's plan that contains t
// (start <= t < end), or -1.
func (l *Lease) runPhase(t time.Time) int {
	for i := l.cur; i < len(l.plan); i++ {
		p := l.plan[i]
		if p.kind == phRun && !p.start.After(t) && p.end.After(t) {
			return i
		}
	}
	return -1
}

// plannedEnd is when the lease's current plan ends (zero without one).
func (l *Lease) plannedEnd() time.Time {
	if len(l.plan) == 0 {
		return time.Time{}
	}
	return l.plan[len(l.plan)-1].end
}

// PlannedStart is when the lease's plan begins (zero without one).
func (l *Lease) PlannedStart() time.Time {
	if l.cur >= len(l.plan) {
		return time.Time{}
	}
	return l.plan[l.cur].start
}

// findExclusive is find for a queued lease, keeping its resumption (or
// migration) clear of other leases' suspend, resume and migrate operations
// on the same hosts (exclusion local) or anywhere (exclusion global).
func (s *Scheduler) findExclusive(l *Lease, from, until time.Time, d time.Duration, sp []stepSpec) (placement, bool) {
	return s.clearOfOps(l, from, until, sp, func(from time.Time) (placement, bool) { return s.find(l, from, until, d, nil) })
}

// clearOfOps is findExclusive's search with find for find(l, from, until,
// d, nil): the first placement find gives from from on whose resumption
// (or migration, steps sp) is clear of other leases' image operations,
// searching again after those in the way are over.
func (s *Scheduler) clearOfOps(l *Lease, from, until time.Time, sp []stepSpec, find func(from time.Time) (placement, bool)) (placement, bool) {
	ops := imageOpsTime(sp)
	for tries := 0; tries < 64; tries++ {
		p, ok := find(from)
		if !ok || ops == 0 {
			return p, ok
		}
		clear, next := s.opsClear(l, p, ops)
		if clear {
			return p, true
		}
		if !until.IsZero() && next.After(until) {
			return placement{}, false
		}
		from = next
	}
	return placement{}, false
}

// opsClear reports whether [p.start, p.start+d) is free of other leases'
// image operations under the exclusion setting, and if not, when the
// conflicting ones are over.
func (s *Scheduler) opsClear(l *Lease, p placement, d time.Duration) (bool, time.Time) {
	_, last, any := s.imageOps(l, p, d)
	return !any, last
}

// imageOpsTime is how long steps sp's migration and resumption last.
func imageOpsTime(sp []stepSpec) time.Duration {
	var ops time.Duration
	for _, st := range sp {
		if st.kind == phMigrate || st.kind == phResume {
			ops += st.d
		}
	}
	return ops
}

// opsStart is the earliest start of the other leases' image operations
// that overlap [p.start, p.start+d) under the exclusion setting.
func (s *Scheduler) opsStart(l *Lease, p placement, d time.Duration) time.Time {
	first, _, _ := s.imageOps(l, p, d)
	return first
}

// imageOps scans the other leases' suspend, resume and migrate
// reservations overlapping [p.start, p.start+d), on p's hosts (exclusion
// local) or anywhere (global), but the lazy plans' (lazyplan.go): the
// earliest start (at most p.start), the latest end, and whether there is
// any.
func (s *Scheduler) imageOps(l *Lease, p placement, d time.Duration) (first, last time.Time, any bool) {
	first = p.start
	end := p.start.Add(d)
	visit := func(r slottable.Reservation) {
		if r.Lease == l.ID || s.lazyPlan(r) || (r.Kind != slottable.KindSuspend && r.Kind != slottable.KindResume && r.Kind != slottable.KindMigrate) {
			return
		}
		any = true
		if r.Start.Before(first) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	if s.cfg.Exclusion != ExclusionLocal {
		s.table.EachOverlapping(p.start, end, visit)
		return first, last, any
	}
	// Only p's hosts, each once (the answer does not depend on the order).
	s.opsHosts = append(s.opsHosts[:0], p.hosts...)
	slices.Sort(s.opsHosts)
	for _, h := range slices.Compact(s.opsHosts) {
		s.table.EachOverlappingOn(h, p.start, end, visit)
	}
	return first, last, any
}

// sameHosts reports whether hosts puts as many VMs on each host as prev.
func sameHosts(prev map[slottable.HostID]int, hosts []slottable.HostID) bool {
	if len(prev) == 0 {
		return false
	}
	var buf [64]slottable.HostID
	if len(hosts) <= len(buf) { // counted in order, without a map
		sorted := buf[:len(hosts)]
		copy(sorted, hosts)
		slices.Sort(sorted)
		distinct := 0
		for i := 0; i < len(sorted); {
			j := i + 1
			for j < len(sorted) && sorted[j] == sorted[i] {
				j++
			}
			if prev[sorted[i]] != j-i {
				return false
			}
			distinct, i = distinct+1, j
		}
		return distinct == len(prev)
	}
	now := hostsOf(hosts)
	if len(now) != len(prev) {
		return false
	}
	for h, n := range now {
		if prev[h] != n {
			return false
		}
	}
	return true
}
