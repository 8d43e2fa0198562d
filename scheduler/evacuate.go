package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Evacuate empties host h at now so that it can be switched off
// (consolidation, docs/models.md §5): every lease with a reservation on
// it from now on is moved off it according to its class, and h is closed
// so that nothing new is placed there. Once its last reservation is over,
// PowerOff switches it off.
//
//   - A running external lease is preempted now as a local lease would
//     preempt it (operationFor: migrated or suspended and queued again at
//     the front, requeued or cancelled), its operation taking the time the
//     overhead model gives, on its hosts. One whose run ends before that
//     operation would is left to end.
//   - A queued lease planned there that has not begun loses its plan and
//     is planned again elsewhere (history reason consolidated).
//   - A lease whose plan on h only ends (suspending, stopping, shutting
//     down) is left to end.
//
// Evacuate refuses with ErrNotEvacuable, changing nothing, when h holds a
// lease it cannot move: local or non-preemptable, fixed and not begun, or
// preparing, resuming or migrating there. It returns ErrPowerTransition
// for a host that is not on, ErrUnknownHost for an unknown one.
func (s *Scheduler) Evacuate(now time.Time, h slottable.HostID) ([]Action, error) {
	return s.EvacuateHosts(now, []slottable.HostID{h})
}

// EvacuateHosts is Evacuate for several hosts at once (the queue is
// planned again once). It stops at the first host it refuses, returning
// the error; the hosts before it are being emptied.
func (s *Scheduler) EvacuateHosts(now time.Time, hosts []slottable.HostID) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	var err error
	for _, h := range hosts {
		if err = s.evacuate(now, h); err != nil {
			break
		}
	}
	s.dirty = true
	s.run(now)
	return s.flush(), err
}

func (s *Scheduler) evacuate(now time.Time, h slottable.HostID) error {
	if _, ok := s.table.Host(h); !ok {
		return fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	if st := s.PowerState(h, now); st != PowerOn {
		return fmt.Errorf("host %d is %s: %w", h, st, ErrPowerTransition)
	}
	move, unplan, err := s.evacuation(now, h)
	if err != nil {
		return err
	}
	s.power.init()
	if _, ok := s.power.evac[h]; !ok {
		s.power.evac[h] = s.table.Closed(h)
	}
	if err := s.table.SetClosed(h, true); err != nil {
		return err
	}
	detail := fmt.Sprintf("by energy consolidation of host %d", h)
	for _, v := range move {
		s.apply(v, now, detail)
	}
	for _, l := range unplan {
		s.unplan(l)
		l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonConsolidated,
			Detail: fmt.Sprintf("host %d is being emptied to be switched off", h)})
	}
	return nil
}

// evacuation sorts the leases with a reservation on h from now on into
// those to preempt and those to plan again; it fails if one cannot move.
func (s *Scheduler) evacuation(now time.Time, h slottable.HostID) ([]*victim, []*Lease, error) {
	var move []*victim
	var unplan []*Lease
	for _, id := range s.leasesOn(h, now) {
		l := s.leases.get(id)
		if l == nil || leavesOnly(l) {
			continue
		}
		if !s.evacuable(l) {
			return nil, nil, fmt.Errorf("host %d: lease %d (%s, %s, %s): %w", h, id, l.Req.Origin, l.Req.Class, l.State, ErrNotEvacuable)
		}
		if _, notBegun := l.preemptionState(); notBegun {
			unplan = append(unplan, l)
			continue
		}
		v := s.evacuee(l, now)
		if !v.to.Before(l.plan[l.cur].end) {
			continue // its run is over before the move would be
		}
		move = append(move, v)
	}
	return move, unplan, nil
}

// evacuee is running lease l preempted at now, its operation from now.
func (s *Scheduler) evacuee(l *Lease, now time.Time) *victim {
	v := s.candidate(l, true)
	v.from, v.to = now, now.Add(v.opLen)
	return v
}

// leavesOnly reports whether every phase left in l's plan ends its VMs
// (suspend, stop, shutdown): it leaves its hosts by itself.
func leavesOnly(l *Lease) bool {
	for i := l.cur; i < len(l.plan); i++ {
		switch l.plan[i].kind {
		case phSuspend, phStop, phShutdown:
		default:
			return false
		}
	}
	return true
}

// leasesOn returns the leases with a reservation on host h from now on,
// by ID (power reservations, lease 0, excluded).
func (s *Scheduler) leasesOn(h slottable.HostID, now time.Time) []LeaseID {
	var out []LeaseID
	s.table.EachOverlappingOn(h, now, PowerForever, func(r slottable.Reservation) {
		if r.Lease != 0 {
			out = append(out, r.Lease)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// LeasesOn returns the leases with a reservation on host h from now on,
// by ID.
func (s *Scheduler) LeasesOn(h slottable.HostID, now time.Time) []LeaseID { return s.leasesOn(h, now) }

// Movable reports whether Evacuate would accept host h at now: it is on
// and holds only leases it can move (or none); leases are h's leases,
// as LeasesOn(h, now) gives them (the energy controller lists them for
// every host it might empty, and uses them again).
func (s *Scheduler) Movable(h slottable.HostID, now time.Time, leases []LeaseID) bool {
	if s.PowerState(h, now) != PowerOn {
		return false
	}
	// evacuation's test alone: its moves are not needed to know.
	for _, id := range leases {
		if l := s.leases.get(id); l != nil && !leavesOnly(l) && !s.evacuable(l) {
			return false
		}
	}
	return true
}

// evacuable reports whether evacuation can move or unplan l: the rule
// lets it be preempted and it runs, or is queued and has not begun.
func (s *Scheduler) evacuable(l *Lease) bool {
	running, notBegun := l.preemptionState()
	return s.rule.Preemptable(l) && (running || notBegun)
}
