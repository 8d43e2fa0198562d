package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Switching off a host with a reservation ahead (docs/models.md §5,
// energy.switch_off_ahead). PowerOff refuses a host with a reservation
// from now on; PowerOffAhead takes one that is free until its next
// reservation begins at T, and plans the whole cycle at once: shutting
// down from now, off, booting from T minus the boot time, on at T. Its
// power reservation covers [now, T), so nothing is placed there, and the
// boot is planned as PowerOn plans one for later: BootPlanned reports it,
// the enactment side starts it at its time (energyctl's SwitchedOn hook),
// and PowerOn moves it earlier for a lease that wants the host before T.

// PowerOffAhead switches host h off at now and plans its boot so that it
// is on when its next reservation begins. It returns when the boot
// starts and when the host is on. The host must be on, free from now to
// its next reservation (ErrHostBusy), with a reservation ahead
// (ErrHostBusy otherwise too: PowerOff is for a host with none), at least
// minGap from now, and minGap must cover the shutdown and the boot
// (ErrPowerTransition: too close to be worth it). A host off, shutting
// down or booting gives ErrPowerTransition.
func (s *Scheduler) PowerOffAhead(now time.Time, h slottable.HostID, minGap time.Duration) (boot, on time.Time, err error) {
	s.setNow(now)
	host, ok := s.table.Host(h)
	if !ok {
		return time.Time{}, time.Time{}, fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	s.power.init()
	if p := s.power.hosts[h]; p != nil {
		if p.boot.IsZero() || now.Before(p.on) {
			return time.Time{}, time.Time{}, fmt.Errorf("host %s is %s: %w", host.Name, s.PowerState(h, now), ErrPowerTransition)
		}
		s.forgetPower(h) // on since p.on
	}
	next, ok := s.NextReservation(h, now)
	if !ok {
		return time.Time{}, time.Time{}, fmt.Errorf("host %s: no reservation ahead: %w", host.Name, ErrHostBusy)
	}
	if !next.After(now) {
		return time.Time{}, time.Time{}, fmt.Errorf("host %s: busy at %s: %w", host.Name, FormatTime(now), ErrHostBusy)
	}
	minGap = max(minGap, s.power.shutdown+s.power.boot)
	if next.Sub(now) < minGap {
		return time.Time{}, time.Time{}, fmt.Errorf("host %s: next reservation at %s, sooner than %s: %w", host.Name, FormatTime(next), minGap, ErrPowerTransition)
	}
	id, err := s.table.Add(slottable.Reservation{Host: h, Kind: slottable.KindPower, Start: now, End: next, Res: host.Capacity})
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("host %s: reserving its power-off: %w", host.Name, err)
	}
	disabled := s.table.Closed(h)
	if was, ok := s.power.evac[h]; ok {
		disabled = was
		delete(s.power.evac, h)
	}
	boot = next.Add(-s.power.boot)
	s.power.hosts[h] = &hostPower{res: id, down: now, off: now.Add(s.power.shutdown), boot: boot, on: next, disabled: disabled}
	s.power.pending = append(s.power.pending, h)
	return boot, next, s.table.SetClosed(h, disabled)
}

// NextReservation is when the first reservation on host h that does not
// hold it at now begins, if any; a host busy at now gives now.
func (s *Scheduler) NextReservation(h slottable.HostID, now time.Time) (time.Time, bool) {
	var next time.Time
	found := false
	for _, r := range s.table.ReservationsOn(h, now, PowerForever) {
		start := r.Start
		if start.Before(now) {
			start = now
		}
		if !found || start.Before(next) {
			next, found = start, true
		}
	}
	return next, found
}
