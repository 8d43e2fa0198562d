package scheduler

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Change is a lease that a restore (or catching up after the daemon was
// down, late.go) planned differently from what was saved, and why. The
// lease's history has an entry with the same reason and detail.
type Change struct {
	Lease  LeaseID
	Reason Reason
	Detail string
}

// RestoreReplanning is Restore for a saved state that may be inconsistent.
// A consistent state is restored as Restore does (no changes). Where
// Restore would return ErrInconsistent because a host would be over
// capacity, it keeps what fits and plans the rest again, in this order:
//
//   - the power cycles of the hosts and the phases in progress (what the
//     hosts are doing now) are kept as saved, oldest phase first; where
//     one overbooks a host, VMs starting or running are stopped and the
//     lease planned again (below), and an operation in progress (suspend,
//     resume, migrate, shutdown) is kept all the same, as the host is
//     doing it;
//   - a lease that has not begun and whose saved reservations would put a
//     host over capacity loses its plan: a queued lease is planned again
//     by the queue, an advance reservation or other fixed lease at the
//     earliest time from its planned start where it fits (queued leases
//     give way to it, as to a new arrival);
//
// and it returns one Change per lease it changed (the VMs it stops are in
// TakeActions). Errors other than a host over capacity (a damaged record)
// are returned as Restore returns them. The scheduler returned owns a
// clone of table: use its Table().
func RestoreReplanning(cfg Config, table *slottable.Table, epoch time.Time, st SavedState, leases []SavedLease, log Logger) (*Scheduler, []Change, error) {
	s, err := Restore(cfg, table.Clone(), epoch, st, leases, log)
	if err == nil || !errors.Is(err, slottable.ErrOverCapacity) {
		return s, nil, err
	}
	return repair(cfg, table.Clone(), epoch, st, leases, log)
}

func repair(cfg Config, table *slottable.Table, epoch time.Time, st SavedState, leases []SavedLease, log Logger) (*Scheduler, []Change, error) {
	s, err := New(cfg, table, epoch, log)
	if err != nil {
		return nil, nil, err
	}
	checking := table.Checking()
	table.SetChecking(true)
	defer table.SetChecking(checking)
	if err := s.restorePower(st.Power); err != nil { // powersnap.go
		return nil, nil, err
	}
	var changes []Change
	for _, sl := range repairOrder(leases) {
		l, err := s.restoreLease(sl)
		if errors.Is(err, slottable.ErrOverCapacity) {
			var c Change
			l, c, err = s.restoreOverbooked(sl, err, st.Now)
			changes = append(changes, c)
		}
		if err != nil {
			return nil, nil, err
		}
		s.addRestored(l)
	}
	sort.Slice(s.ids, func(i, j int) bool { return s.ids[i] < s.ids[j] })
	s.restoreState(st)
	gaveWay := false
	for i := range changes {
		if l := s.leases.get(changes[i].Lease); fixedUnplanned(l) {
			if !gaveWay {
				s.unplanQueue() // queued leases give way to fixed ones, as to a new arrival
				gaveWay = true
			}
			changes[i].Detail += s.replanFixed(l)
		}
	}
	for _, c := range changes {
		l := s.leases.get(c.Lease)
		l.History = append(l.History, Event{At: st.Now, State: l.State, Reason: c.Reason, Detail: c.Detail})
	}
	s.dirty = true
	if err := s.Check(); err != nil && !errors.Is(err, slottable.ErrOverCapacity) {
		return nil, nil, fmt.Errorf("%w: %w", ErrInconsistent, err)
	}
	return s, changes, nil
}

// TakeActions returns, and forgets, the actions decided by a call that
// does not return them: RestoreReplanning's stops of VMs that overbooked a
// host. The caller enacts them before anything else.
func (s *Scheduler) TakeActions() []Action { return s.flush() }

// repairOrder is the order in which a repair restores the leases: those in
// a phase (by the phase's start), then the others planned (by their
// plan's start), then those without a plan; ties by ID.
func repairOrder(leases []SavedLease) []*SavedLease {
	out := make([]*SavedLease, len(leases))
	for i := range leases {
		out[i] = &leases[i]
	}
	rank := func(sl *SavedLease) (int, time.Time) {
		switch {
		case len(sl.Plan) == 0 || sl.Cur < 0 || sl.Cur >= len(sl.Plan):
			return 2, time.Time{}
		case sl.Entered:
			return 0, sl.Plan[sl.Cur].Start
		}
		return 1, sl.Plan[sl.Cur].Start
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, ti := rank(out[i])
		rj, tj := rank(out[j])
		if ri != rj {
			return ri < rj
		}
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// restoreOverbooked restores lease sl, whose saved reservations would put
// a host over capacity (cause), with what the repair keeps of it at now:
// an operation in progress as saved (the hosts are doing it); VMs
// starting or running are stopped, and the lease is planned again from
// the start of that run; a lease that has not begun loses its plan.
func (s *Scheduler) restoreOverbooked(sl *SavedLease, cause error, now time.Time) (*Lease, Change, error) {
	for _, r := range s.table.ForLease(uint64(sl.ID)) { // what restoreLease added before it failed
		_ = s.table.Remove(r.ID)
	}
	c := Change{Lease: sl.ID, Reason: ReasonRestoreReplanned}
	kind := ""
	if sl.Entered {
		kind = sl.Plan[sl.Cur].Kind
	}
	if kind != "" && kind != phPrepare.String() && kind != phRun.String() {
		s.table.SetChecking(false)
		l, err := s.restoreLease(sl)
		s.table.SetChecking(true)
		if err != nil {
			return nil, c, err
		}
		c.Detail = fmt.Sprintf("its %s in progress overbooks a host (%v): kept as saved, the host is doing it", kind, cause)
		return l, c, nil
	}
	bare := *sl
	bare.Plan, bare.Cur, bare.Entered, bare.Promise = nil, 0, false, nil
	l, err := s.restoreLease(&bare)
	if err != nil {
		return nil, c, err
	}
	l.gen++
	c.Detail = fmt.Sprintf("its saved plan would overbook a host (%v): planned again", cause)
	if kind != "" {
		s.stopOverbooked(l, sl.Plan[sl.Cur].Hosts, now)
		what := "its running VMs"
		if kind == phPrepare.String() {
			what = "its VMs being started"
		}
		c.Detail = fmt.Sprintf("%s overbook a host (%v): stopped, and planned again", what, cause)
	}
	if l.queued {
		c.Detail += " by the queue"
	}
	return l, c, nil
}

// stopOverbooked stops the VMs of lease l, starting or running on hosts,
// at now: a best-effort lease goes back to the front of the queue, a
// fixed one waits for replanFixed. What it ran since its last start or
// resumption is lost (Remaining is as it was then).
func (s *Scheduler) stopOverbooked(l *Lease, hosts []slottable.HostID, now time.Time) {
	l.after, l.stopped = afterDone, false
	s.emit(Action{At: now, Lease: l.ID, Hosts: hosts}, ActStop)
	if l.Req.Kind == BestEffort {
		l.setState(now, Queued, "", "")
		s.requeueFront(l)
		return
	}
	l.setState(now, Scheduled, "", "")
}

// fixedUnplanned reports whether l is a fixed lease (advance reservation,
// immediate, deadline) that lost its plan in a repair: nothing else would
// ever plan it again.
func fixedUnplanned(l *Lease) bool {
	return l != nil && l.State == Scheduled && !l.queued && !l.entered && len(l.plan) == 0
}

// replanFixed plans fixed lease l, whose saved plan was dropped, at the
// earliest time from its requested start (or now) where it fits, and
// returns what to add to its Change's detail; if it fits nowhere, it is
// rejected.
func (s *Scheduler) replanFixed(l *Lease) string {
	from := l.Ready
	if from.Before(s.now) {
		from = s.now
	}
	sp, total := s.steps(l)
	if p, ok := s.find(l, from, time.Time{}, total, nil); ok && s.build(l, p, sp) == nil {
		return fmt.Sprintf(" from %s (it was to start at %s)", stamp(p.start), stamp(l.Ready))
	}
	s.reject(l, s.now, ReasonNoCapacity, "its saved plan overbooked a host and it fits nowhere")
	return ": it fits nowhere and is rejected"
}
