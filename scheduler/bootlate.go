package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// What really happens to a host switched on or off can differ from the
// plan: a boot takes longer than the boot time, a boot or a shutdown
// fails. The daemon tells the scheduler with the methods here, so that
// the plan follows the hosts.

// DelayBoot records that host h, whose boot has begun, is not on at now:
// it is taken as on from until (or from when BootDone says it is). Queued
// leases planned on h before until that can be planned again are (reason
// host-boot-late); a reservation that cannot move (a fixed lease, a lease
// in the middle of an operation, a lease bound to its deadline) stays,
// and the boot is extended only up to its start. It returns when h is
// now planned to be on.
//
// Call it before Advance(now): Advance takes a host whose boot time has
// come for on, and begins what was planned there.
func (s *Scheduler) DelayBoot(now time.Time, h slottable.HostID, until time.Time) (time.Time, error) {
	host, ok := s.table.Host(h)
	if !ok {
		return time.Time{}, fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	p := s.power.hosts[h]
	if p == nil || p.boot.IsZero() || p.boot.After(now) {
		return time.Time{}, fmt.Errorf("host %s: no boot in progress: %w", host.Name, ErrPowerTransition)
	}
	s.setNow(now)
	if !until.After(p.on) {
		return p.on, nil
	}
	s.unplanOn(now, h, until, ReasonBootLate, fmt.Sprintf("host %s not on at %s", host.Name, FormatTime(p.on)))
	on := until
	for _, r := range s.table.ReservationsOn(h, p.on, until) {
		if r.Lease != 0 && r.Start.Before(on) {
			on = r.Start
		}
	}
	if !on.After(p.on) {
		return p.on, nil // what stays begins as planned (the daemon waits for the host)
	}
	if err := s.holdPower(h, p, on); err != nil {
		return time.Time{}, fmt.Errorf("host %s: extending its boot: %w", host.Name, err)
	}
	p.on = on
	return on, nil
}

// holdPower makes host h's power reservation (p) end at end.
func (s *Scheduler) holdPower(h slottable.HostID, p *hostPower, end time.Time) error {
	if r, ok := s.table.Get(p.res); ok && p.res != 0 {
		if end.After(r.Start) {
			return s.table.SetEnd(p.res, end)
		}
		p.res = 0
		return s.table.Remove(r.ID)
	}
	if !end.After(p.boot) {
		return nil
	}
	host, _ := s.table.Host(h)
	id, err := s.table.Add(slottable.Reservation{Host: h, Kind: slottable.KindPower, Start: p.boot, End: end, Res: host.Capacity})
	if err != nil {
		return err
	}
	p.res = id
	return nil
}

// planUsesBefore reports whether lease l's plan still to come puts a VM on
// host h in a phase that begins before t.
func planUsesBefore(l *Lease, h slottable.HostID, t time.Time) bool {
	from := l.cur
	if l.entered {
		from++
	}
	for i := from; i < len(l.plan); i++ {
		if !l.plan[i].start.Before(t) {
			break
		}
		for _, x := range l.plan[i].hosts {
			if x == h {
				return true
			}
		}
	}
	return false
}

// BootDone records that host h, booting, is on at now: if it was planned
// to be on later (a boot faster than planned, or one DelayBoot extended),
// it takes placements from now and the queue is planned again. A host
// with no boot in progress is left as it is.
func (s *Scheduler) BootDone(now time.Time, h slottable.HostID) error {
	if _, ok := s.table.Host(h); !ok {
		return fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	p := s.power.hosts[h]
	if p == nil || p.boot.IsZero() || p.boot.After(now) || !p.on.After(now) {
		return nil
	}
	s.setNow(now)
	if err := s.holdPower(h, p, now); err != nil {
		return err
	}
	p.on = now
	s.PlanQueue()
	return nil
}

// BootFailed records that host h's boot failed at now: it is off again.
// Queued leases planned on it are planned again (reason
// host-boot-failed), and so are advance reservations and immediate leases
// that have not begun, on other hosts at the same start, where there is
// room without preempting. The host is closed to new placements until it
// is switched on again (PowerOn) or put back in service. What cannot
// move stays (ErrHostBusy is returned; the caller fails those leases and
// calls again).
func (s *Scheduler) BootFailed(now time.Time, h slottable.HostID) error {
	host, ok := s.table.Host(h)
	if !ok {
		return fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	s.setNow(now)
	detail := fmt.Sprintf("host %s failed to boot", host.Name)
	s.unplanOn(now, h, PowerForever, ReasonBootFailed, detail)
	closed := s.table.Closed(h)
	if err := s.table.SetClosed(h, true); err != nil { // not a place to move to
		return err
	}
	for _, id := range s.leasesOn(h, now) {
		if l := s.leases.get(id); l != nil && s.moveFixed(l, now) {
			l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonBootFailed,
				Detail: detail + ": moved to other hosts"})
		}
	}
	if err := s.table.SetClosed(h, closed); err != nil {
		return err
	}
	if p := s.power.hosts[h]; p != nil && !p.boot.IsZero() {
		if rs := lessPower(s.table.ReservationsOn(h, now, PowerForever)); len(rs) > 0 {
			return fmt.Errorf("host %s: %d reservations (lease %d first): %w", host.Name, len(rs), rs[0].Lease, ErrHostBusy)
		}
		s.forgetPower(h) // the boot that failed
	}
	// Off from now (no shutdown to wait for), closed; ErrHostBusy if a
	// lease whose boot was over in the plan holds it still.
	return s.powerOff(now, h, 0)
}

// moveFixed plans an advance reservation or immediate lease that has not
// begun again at the same start, where it fits without preempting
// (closed hosts are not taken); it reports whether it did. Otherwise its
// plan is as it was.
func (s *Scheduler) moveFixed(l *Lease, now time.Time) bool {
	if (l.Req.Kind != AdvanceReservation && l.Req.Kind != Immediate) || l.State != Scheduled || l.entered ||
		len(l.plan) == 0 || l.plan[0].start.Before(now) {
		return false
	}
	start := l.plan[0].start
	sp, total := s.steps(l)
	old := s.takePlan(l)
	if p, ok := s.find(l, start, start, total, nil); ok && s.build(l, p, sp) == nil {
		return true
	}
	s.restorePlan(l, old)
	return false
}

// unplanOn plans again the queued leases (not begun, not deadline-bound)
// planned on host h before until, noting why in their history.
func (s *Scheduler) unplanOn(now time.Time, h slottable.HostID, until time.Time, why Reason, detail string) {
	for _, id := range s.queue {
		l := s.leases.get(id)
		if l.entered || deadlineBound(l) || !planUsesBefore(l, h, until) {
			continue
		}
		s.unplan(l)
		l.History = append(l.History, Event{At: now, State: l.State, Reason: why, Detail: detail})
		s.dirty = true
	}
}

// lessPower drops power reservations from rs.
func lessPower(rs []slottable.Reservation) []slottable.Reservation {
	out := rs[:0:0]
	for _, r := range rs {
		if r.Lease != 0 {
			out = append(out, r)
		}
	}
	return out
}

// OffFailed records that host h, switched off, could not be: it is on
// from now, and takes placements again (unless it was out of service
// when it was switched off). Nothing happens to a host that is not
// switched off or shutting down.
func (s *Scheduler) OffFailed(now time.Time, h slottable.HostID) error {
	if _, ok := s.table.Host(h); !ok {
		return fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	p := s.power.hosts[h]
	if p == nil || !p.boot.IsZero() {
		return nil
	}
	s.setNow(now)
	disabled := p.disabled
	s.forgetPower(h)
	if err := s.table.SetClosed(h, disabled); err != nil {
		return err
	}
	s.PlanQueue()
	return nil
}
