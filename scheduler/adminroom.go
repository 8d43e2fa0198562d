package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// An admin operation is planned like any other reservation: it fits, or
// it moves what can move, or it is refused.
//
//   - Lease l's own reservations from the operation's start on do not
//     count: the operation replaces them.
//   - A queued lease that has not begun (and is not deadline-bound) can
//     move: when it is in the way its plan is dropped (history
//     ReasonMovedForAdmin) and the queue plans it again after the
//     operation.
//   - Anything else in the way (an advance reservation or immediate lease,
//     a lease that runs or is in an operation, a host's power cycle)
//     refuses the operation with ErrNoRoom (reason ReasonOpNoRoom),
//     changing nothing.

// opRoom makes room for lease l's operation what (e.g. "suspending") over
// [from, to) on hosts (one entry per VM), or returns ErrNoRoom naming the
// host and what holds it.
func (s *Scheduler) opRoom(l *Lease, what string, from, to time.Time, hosts []slottable.HostID) error {
	if !to.After(from) {
		return nil
	}
	count := hostsOf(hosts)
	own := func(r slottable.Reservation) bool { return r.Lease == uint64(l.ID) }
	movable := func(r slottable.Reservation) bool { return own(r) || s.movableFor(l, r.Lease) }
	var moving []*Lease
	for _, h := range distinctHosts(hosts) {
		need := s.need(l, count[h])
		if s.roomFor(h, from, to, need, own) {
			continue
		}
		if !s.roomFor(h, from, to, need, movable) {
			return s.noRoom(l, what, h, from, to, movable)
		}
		for _, r := range s.table.ReservationsOn(h, from, to) {
			if m := s.leases.get(LeaseID(r.Lease)); !own(r) && movable(r) && !containsLease(moving, m) {
				moving = append(moving, m)
			}
		}
	}
	for _, m := range moving {
		s.unplan(m)
		m.History = append(m.History, Event{At: from, State: m.State, Reason: ReasonMovedForAdmin,
			Detail: fmt.Sprintf("its plan gave way to lease %d %s (by an admin)", l.ID, what)})
		s.dirty = true
	}
	return nil
}

// movableFor reports whether lease id's plan may give way to an operation
// of lease l: it is queued, has not begun and is not deadline-bound.
func (s *Scheduler) movableFor(l *Lease, id uint64) bool {
	m := s.leases.get(LeaseID(id))
	return m != nil && m != l && m.queued && !m.entered && !deadlineBound(m)
}

// need is what n VMs of lease l hold on a host.
func (s *Scheduler) need(l *Lease, n int) slottable.Resources {
	res := make(slottable.Resources, s.table.Dims())
	res[slottable.CPU], res[slottable.Memory] = l.Req.CPU*int64(n), l.Req.Memory*int64(n)
	return res
}

// roomFor reports whether need fits on host h over [from, to) with the
// reservations ignore reports left out.
func (s *Scheduler) roomFor(h slottable.HostID, from, to time.Time, need slottable.Resources, ignore func(slottable.Reservation) bool) bool {
	host, _ := s.table.Host(h)
	used := s.table.UsedIgnoring(h, from, to, ignore)
	for j := range need {
		if used[j]+need[j] > host.Capacity[j] {
			return false
		}
	}
	return true
}

// noRoom is the ErrNoRoom for lease l's operation on host h: it names the
// first reservation in the way that cannot move.
func (s *Scheduler) noRoom(l *Lease, what string, h slottable.HostID, from, to time.Time, movable func(slottable.Reservation) bool) error {
	host, _ := s.table.Host(h)
	holder := "other reservations"
	for _, r := range s.table.ReservationsOn(h, from, to) {
		if movable(r) {
			continue
		}
		holder = fmt.Sprintf("lease %d holds it from %s", r.Lease, stamp(r.Start))
		if r.Kind == slottable.KindPower {
			holder = fmt.Sprintf("its power cycle holds it from %s", stamp(r.Start))
		}
		break
	}
	return fmt.Errorf("lease %d: %s it would hold host %s until %s, but %s (%s): %w",
		l.ID, what, host.Name, stamp(to), holder, ReasonOpNoRoom, ErrNoRoom)
}

// stamp prints a time for a message, to the second.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

func containsLease(ls []*Lease, l *Lease) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}
