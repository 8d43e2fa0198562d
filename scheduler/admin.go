package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// lookup returns a live lease or the error the admin operations return.
func (s *Scheduler) lookup(id LeaseID) (*Lease, error) {
	l := s.leases.get(id)
	if l == nil {
		return nil, fmt.Errorf("lease %d: %w", id, ErrUnknownLease)
	}
	if l.State.Terminal() {
		return nil, fmt.Errorf("lease %d is %s: %w", id, l.State, ErrLeaseOver)
	}
	return l, nil
}

// AdminSuspend suspends running lease id now. It stays suspended (out of
// the queue) until AdminResume. The suspension is reserved on its hosts
// for the time the overhead model gives; where that would overbook a host
// queued leases in the way move (adminroom.go), and if anything else is in
// the way it returns ErrNoRoom and changes nothing.
func (s *Scheduler) AdminSuspend(now time.Time, id LeaseID) ([]Action, error) {
	return s.adminSuspend(now, id, false)
}

// AdminMigrate suspends running lease id now and queues it again at the
// front, to be resumed on hosts other than those it runs on (where it fits;
// on the same ones if nothing else ever does). Its suspension must fit as
// AdminSuspend's does (ErrNoRoom).
func (s *Scheduler) AdminMigrate(now time.Time, id LeaseID) ([]Action, error) {
	return s.adminSuspend(now, id, true)
}

func (s *Scheduler) adminSuspend(now time.Time, id LeaseID, migrate bool) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	l, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if l.State != Running || !l.entered || l.plan[l.cur].kind != phRun {
		return nil, fmt.Errorf("lease %d is %s: %w", id, l.State, ErrNotRunning)
	}
	hosts := l.plan[l.cur].hosts
	end := now.Add(s.suspendTime(l, hosts))
	if err := s.opRoom(l, "suspending", now, end, hosts); err != nil { // adminroom.go
		return nil, err
	}
	s.voidPending(l, now, "the lease was suspended by an admin first")
	s.cut(l, now)
	l.after, l.prevHost = afterSuspend, hostsOf(hosts)
	if migrate {
		l.migrate, l.avoid = true, hostsOf(hosts)
		l.Reason, l.Detail = ReasonAdminMigrate, ""
	} else {
		l.hold = true
		l.Reason, l.Detail = ReasonAdminSuspend, ""
	}
	l.History = append(l.History, Event{At: now, State: l.State, Reason: l.Reason})
	if err := s.appendPhase(l, phSuspend, now, end, hosts); err != nil {
		return nil, fmt.Errorf("lease %d: reserving its suspension: %w", id, err)
	}
	s.dirty = true
	s.step(l, now)
	s.run(now)
	return s.flush(), nil
}

// AdminResume puts a lease held by AdminSuspend back at the front of the
// queue: it is resumed where and when it fits.
func (s *Scheduler) AdminResume(now time.Time, id LeaseID) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	l, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if !l.hold || l.State != Suspended {
		return nil, fmt.Errorf("lease %d is %s and not held: %w", id, l.State, ErrNotRunning)
	}
	l.hold = false
	s.requeueFront(l)
	s.run(now)
	return s.flush(), nil
}

// Fail ends lease id at now because its enactment failed (reason says
// why, detail is the driver's message). Everything it holds is released;
// the driver is told to stop what is left of it.
func (s *Scheduler) Fail(now time.Time, id LeaseID, detail string) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	l, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	s.voidPending(l, now, "the lease failed first")
	hosts := l.Hosts
	if l.entered && l.cur < len(l.plan) {
		hosts = l.plan[l.cur].hosts
	}
	s.cut(l, now)
	for i := l.cur; i < len(l.plan); i++ {
		s.release(l, &l.plan[i])
	}
	l.plan, l.cur, l.entered = nil, 0, false
	l.gen++
	s.removeFromQueue(id)
	l.hold = false
	l.setState(now, Failed, ReasonEnactmentFailure, detail)
	if len(hosts) > 0 {
		s.emit(Action{At: now, Lease: id, Hosts: hosts}, ActStop)
	}
	s.emit(Action{At: now, Lease: id, Hosts: hosts}, ActDone)
	s.dirty = true
	s.run(now)
	return s.flush(), nil
}

// SetHostEnabled takes host h out of service (enabled false) or puts it
// back. A disabled host keeps what runs on it and the advance
// reservations already accepted there, but gets nothing new: queued
// leases planned on it that have not started are planned again elsewhere.
func (s *Scheduler) SetHostEnabled(now time.Time, h slottable.HostID, enabled bool) ([]Action, error) {
	s.setNow(now)
	s.run(now)
	if err := s.table.SetClosed(h, !enabled); err != nil {
		return nil, err
	}
	if !enabled {
		for _, id := range s.queue {
			l := s.leases.get(id)
			if l.entered || !planUsesBefore(l, h, PowerForever) {
				continue
			}
			s.unplan(l)
			l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonHostDisabled,
				Detail: fmt.Sprintf("host %d", h)})
		}
	}
	s.dirty = true
	s.run(now)
	return s.flush(), nil
}

// HostEnabled reports whether host h takes new placements.
func (s *Scheduler) HostEnabled(h slottable.HostID) bool { return !s.table.Closed(h) }

// Held reports whether lease id is held suspended by an administrator.
func (s *Scheduler) Held(id LeaseID) bool {
	l := s.leases.get(id)
	return l != nil && l.hold
}
