package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// An operation on a lease's VMs (a suspension, a resumption, a migration,
// a start or a stop) can take longer than the phase reserved for it: the
// daemon did it again from the start after a restart, the driver was
// slow. The daemon tells the scheduler with OperationLate, so that the
// plan keeps the VMs on their hosts for as long as they are really there
// and moves what was to follow them.

// OperationLate records that lease id's current operation (the phase it
// is in, other than its run) is still going on when its reservation ends
// and is expected to last until until. The phase is extended to until,
// and the lease's later phases move by as much. Leases that had not begun
// and were planned on the same hosts in the time taken are moved out of
// the way (history operation-late): a queued lease is planned again, an
// advance reservation or immediate lease keeps its start on other hosts
// where there is room, else starts as much later (keeping its length),
// else at the earliest start after that. It returns the phase's end, which
// is until unless until is not after it. If the longer phase does not fit
// even so (a lease that has begun, or a host's power reservation, is in the
// way), nothing changes and ErrHostBusy is returned.
func (s *Scheduler) OperationLate(now time.Time, id LeaseID, until time.Time) (time.Time, error) {
	l := s.leases.get(id)
	if l == nil {
		return time.Time{}, fmt.Errorf("lease %d: %w", id, ErrUnknownLease)
	}
	if !l.entered || l.cur >= len(l.plan) || l.plan[l.cur].kind == phRun {
		return time.Time{}, fmt.Errorf("lease %d is %s: %w", id, l.State, ErrNoOperation)
	}
	s.setNow(now)
	p := &l.plan[l.cur]
	if !until.After(p.end) {
		return p.end, nil
	}
	was, delta := p.end, until.Sub(p.end)
	rest := slices.Clone(l.plan[l.cur+1:])
	victims := s.inTheWay(l, p, rest, delta)
	taken := make([][]phase, len(victims))
	for i, m := range victims {
		if m.queued && !deadlineBound(m) {
			s.unplan(m)
		} else {
			taken[i] = s.takePlan(m)
		}
	}
	if err := s.lengthen(l, until, delta); err != nil {
		for i, m := range victims {
			if taken[i] != nil {
				s.restorePlan(m, taken[i])
			}
		}
		s.dirty = s.dirty || len(victims) > 0
		return was, err
	}
	detail := fmt.Sprintf("lease %d's %s runs until %s, not %s", l.ID, p.kind, stamp(until), stamp(was))
	l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonOperationLate, Detail: detail})
	for i, m := range victims {
		moved := "planned again"
		if taken[i] != nil {
			moved = s.moveLater(m, taken[i], delta)
		}
		m.History = append(m.History, Event{At: now, State: m.State, Reason: ReasonOperationLate, Detail: detail + ": " + moved})
		s.dirty = true
	}
	return until, nil
}

// inTheWay returns the leases that have not begun (but l) with a
// reservation on the hosts of phase p from its end for delta, or on the
// hosts of l's later phases (rest) moved by delta: those OperationLate
// moves. A lease bound to its deadline is left where it is.
func (s *Scheduler) inTheWay(l *Lease, p *phase, rest []phase, delta time.Duration) []*Lease {
	seen := map[LeaseID]bool{l.ID: true}
	var out []*Lease
	add := func(hosts []slottable.HostID, from, to time.Time) {
		for _, h := range distinctHosts(hosts) {
			for _, r := range s.table.ReservationsOn(h, from, to) {
				m := s.leases.get(r.Lease)
				if r.Lease == 0 || seen[r.Lease] || m == nil || m.entered || m.cur != 0 || deadlineBound(m) {
					continue
				}
				seen[r.Lease] = true
				out = append(out, m)
			}
		}
	}
	add(p.hosts, p.end, p.end.Add(delta))
	for _, ph := range rest {
		add(ph.hosts, ph.start.Add(delta), ph.end.Add(delta))
	}
	slices.SortFunc(out, func(a, b *Lease) int { return a.PlannedStart().Compare(b.PlannedStart()) })
	return out
}

// lengthen makes lease l's current phase end at until and moves its later
// phases by delta, if that fits; otherwise it changes nothing and returns
// ErrHostBusy.
func (s *Scheduler) lengthen(l *Lease, until time.Time, delta time.Duration) error {
	p := &l.plan[l.cur]
	own := func(r slottable.Reservation) bool { return r.Lease == l.ID } // its later phases move too
	for _, id := range p.res {
		if r, ok := s.table.Get(id); ok && !s.roomFor(r.Host, p.end, until, r.Res, own) {
			return fmt.Errorf("lease %d's %s on host %d until %s: %w", l.ID, p.kind, r.Host, stamp(until), ErrHostBusy)
		}
	}
	rest := l.plan[l.cur+1:]
	for i := range rest {
		for _, id := range rest[i].res {
			_ = s.table.Remove(id)
		}
	}
	for _, id := range p.res {
		if err := s.table.SetEnd(id, until); err != nil {
			return err // checked above: cannot happen
		}
	}
	old := p.end
	p.end = until
	for i := range rest {
		ph := &rest[i]
		ph.res, ph.start, ph.end = nil, ph.start.Add(delta), ph.end.Add(delta)
		if err := s.reserveIfFits(l, ph); err != nil {
			s.undoLengthen(l, old, i, delta)
			return err
		}
	}
	l.gen++
	s.push(l, until)
	return nil
}

// undoLengthen puts lease l's current phase back to end at old and its
// later phases back by delta, those before index n of them having been
// reserved moved.
func (s *Scheduler) undoLengthen(l *Lease, old time.Time, n int, delta time.Duration) {
	p := &l.plan[l.cur]
	for _, id := range p.res {
		_ = s.table.SetEnd(id, old)
	}
	p.end = old
	rest := l.plan[l.cur+1:]
	for i := range rest {
		ph := &rest[i]
		if i < n {
			for _, id := range ph.res {
				_ = s.table.Remove(id)
			}
		}
		ph.res, ph.start, ph.end = nil, ph.start.Add(-delta), ph.end.Add(-delta)
		if err := s.reserve(l, ph); err != nil {
			s.log.LeaseError(l.ID, "restoring reservation", err)
		}
	}
}

// reserveIfFits is reserve, refusing with ErrHostBusy a phase that would
// put one of its hosts over capacity (whether or not the table checks).
func (s *Scheduler) reserveIfFits(l *Lease, ph *phase) error {
	for h, n := range hostsOf(ph.hosts) {
		if !s.roomFor(h, ph.start, ph.end, s.need(l, n), nil) {
			return fmt.Errorf("lease %d's %s on host %d from %s: %w", l.ID, ph.kind, h, stamp(ph.start), ErrHostBusy)
		}
	}
	return s.reserve(l, ph)
}

// moveLater plans again a fixed lease m whose plan (old, taken out) was in
// the way of a late operation: at the same start on other hosts, else
// delta later, else at the earliest start after that, else as it was. It
// says what it did, for m's history.
func (s *Scheduler) moveLater(m *Lease, old []phase, delta time.Duration) string {
	start := old[0].start
	sp, total := s.steps(m)
	for _, from := range []time.Time{start, start.Add(delta)} {
		if p, ok := s.find(m, from, from, total, nil); ok && s.build(m, p, sp) == nil {
			if p.start.Equal(start) {
				return "moved to other hosts"
			}
			return fmt.Sprintf("start moved from %s to %s", stamp(start), stamp(p.start))
		}
	}
	if p, ok := s.find(m, start.Add(delta), time.Time{}, total, nil); ok && s.build(m, p, sp) == nil {
		return fmt.Sprintf("start moved from %s to %s", stamp(start), stamp(p.start))
	}
	s.restorePlan(m, old)
	return "could not be moved"
}
