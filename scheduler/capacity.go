package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// SetHostCapacity changes host h's capacity to c from now on: the driver
// measured the host again (monitored for the first time, or resized). A
// host switched off keeps its power reservation, at the new size. More
// room is planned into at the next pass. Less room moves what no longer
// fits, least important first, as a failed boot does: queued leases that
// have not begun are planned again, and advance reservations and
// immediate leases that have not begun move to other hosts at the same
// start where there is room; each notes host-resized in its history.
//
// What still does not fit (leases running there, fixed ones with nowhere
// else to go) stays: the capacity is
// then set only down to what the host holds from now on (the table is
// never over capacity), the host is closed to new placements (the room
// kept is not there to plan into), those leases note it in their history,
// and ErrHostOvercommitted names them. The caller calls again until the
// change goes through (once they end; HostCapacity tells the capacity
// kept), then opens the host (SetHostEnabled). Other errors:
// ErrUnknownHost, slottable.ErrBadResources.
func (s *Scheduler) SetHostCapacity(now time.Time, h slottable.HostID, c slottable.Resources) ([]Action, error) {
	host, ok := s.table.Host(h)
	if !ok {
		return nil, fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	s.setNow(now)
	s.run(now)
	if err := s.resize(h, c); err != nil {
		return nil, fmt.Errorf("host %s: %w", host.Name, err)
	}
	detail := fmt.Sprintf("host %s resized from %s to %s", host.Name, resString(host.Capacity), resString(c))
	stuck, err := s.fitHost(now, h, detail)
	if err == nil && len(stuck) > 0 {
		keep := s.table.Used(h, now, PowerForever)
		for j := range keep {
			keep[j] = max(keep[j], c[j])
		}
		if err = s.resize(h, keep); err == nil {
			err = s.table.SetClosed(h, true)
		}
		if err == nil {
			err = fmt.Errorf("%s: leases %v hold more until they end, capacity kept at %s and host closed: %w",
				detail, stuck, resString(keep), ErrHostOvercommitted)
		}
	}
	s.dirty = true
	s.run(now)
	return s.flush(), err
}

// HostCapacity is host h's capacity in the plan (nil for an unknown host).
func (s *Scheduler) HostCapacity(h slottable.HostID) slottable.Resources {
	host, ok := s.table.Host(h)
	if !ok {
		return nil
	}
	return host.Capacity
}

// resize sets host h's capacity in the table and its power reservation.
func (s *Scheduler) resize(h slottable.HostID, c slottable.Resources) error {
	if err := s.table.SetCapacity(h, c); err != nil {
		return err
	}
	return s.resizePower(h, c)
}

// resizePower remakes host h's power reservation, if it has one, at
// capacity c (a power reservation takes the whole host).
func (s *Scheduler) resizePower(h slottable.HostID, c slottable.Resources) error {
	p := s.power.hosts[h]
	if p == nil || p.res == 0 {
		return nil
	}
	r, ok := s.table.Get(p.res)
	if !ok {
		return nil
	}
	if err := s.table.Remove(r.ID); err != nil {
		return err
	}
	r.Res = slices.Clone(c)
	checking := s.table.Checking()
	s.table.SetChecking(false) // the host is its own: fitHost moves what overlaps
	id, err := s.table.Add(r)
	s.table.SetChecking(checking)
	if err != nil {
		return fmt.Errorf("remaking its power reservation: %w", err)
	}
	p.res = id
	return nil
}

// fitHost moves off host h the leases that make it over capacity from
// now on (see SetHostCapacity); it returns those that stay.
func (s *Scheduler) fitHost(now time.Time, h slottable.HostID, detail string) ([]LeaseID, error) {
	for i := len(s.queue) - 1; i >= 0; i-- {
		l := s.leases.get(s.queue[i])
		if l == nil || l.entered || deadlineBound(l) || !s.overBy(l.ID, h, now) {
			continue
		}
		s.unplan(l)
		l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonHostResized,
			Detail: detail + ": planned again"})
	}
	on := s.leasesOn(h, now)
	closed := s.table.Closed(h)
	if err := s.table.SetClosed(h, true); err != nil { // not a place to move to
		return nil, err
	}
	for i := len(on) - 1; i >= 0; i-- {
		if l := s.leases.get(on[i]); l != nil && s.overBy(l.ID, h, now) && s.moveFixed(l, now) {
			l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonHostResized,
				Detail: detail + ": moved to other hosts"})
		}
	}
	if err := s.table.SetClosed(h, closed); err != nil {
		return nil, err
	}
	var stuck []LeaseID
	for _, id := range s.leasesOn(h, now) {
		l := s.leases.get(id)
		if l == nil || !s.overBy(id, h, now) {
			continue
		}
		stuck = append(stuck, id)
		// Noted once, not again at every call while it runs there.
		if n := len(l.History); n == 0 || l.History[n-1].Reason != ReasonHostResized {
			l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonHostResized,
				Detail: detail + ": its VMs there hold more than that until they end"})
		}
	}
	return stuck, nil
}

// overBy reports whether a reservation of lease id on host h, from now
// on, lies where the host is over capacity.
func (s *Scheduler) overBy(id LeaseID, h slottable.HostID, now time.Time) bool {
	for _, r := range s.table.ReservationsOn(h, now, PowerForever) {
		if r.Lease != id {
			continue
		}
		from := r.Start
		if from.Before(now) {
			from = now
		}
		for _, a := range s.table.Available(h, from, r.End) {
			if a < 0 {
				return true
			}
		}
	}
	return false
}

// resString writes a capacity as "2 cores, 4096 MB" (and any extra
// dimension as a number).
func resString(r slottable.Resources) string {
	out := fmt.Sprintf("%g cores, %d MB", float64(r[slottable.CPU])/100, r[slottable.Memory])
	for _, x := range r[2:] {
		out += fmt.Sprintf(", %d", x)
	}
	return out
}
