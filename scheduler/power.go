package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/powerstate"
	"github.com/bora-sched/bora/slottable"
)

// Power management (docs/models.md §5) as the slot table sees it. A
// host that is off, booting or shutting down holds one reservation of
// kind slottable.KindPower for its whole capacity, with lease 0 (no
// lease has that ID, so the preemption search never takes it for a
// candidate):
//
//	switched off at t (shutting down until t+shutdown, then off):
//	    power reservation [t, PowerForever), host closed
//	switched on at now to be on by at (booting from b = max(now, off, at-boot)):
//	    the reservation ends at b+boot, host open again
//
// So nothing is ever placed on a host that is not on, or that will not be
// on in time, by the queries every placement already makes, and the
// invariant checker covers it: a lease reservation overlapping a power
// reservation over-commits the host. A switched-off host is closed as
// well, so that nothing is planned for after PowerForever.

// PowerState is a host's power state, as planned (package powerstate,
// the type the drivers and the energy package use too).
type PowerState = powerstate.State

// The power states.
const (
	PowerOn           = powerstate.On
	PowerOff          = powerstate.Off
	PowerBooting      = powerstate.Booting
	PowerShuttingDown = powerstate.ShuttingDown
)

// PowerForever is where the power reservation of a host switched off ends:
// far beyond any schedule (and within the slot table's range).
var PowerForever = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

// hostPower is a host that is not plainly on: its power reservation and
// the times of its power cycle.
type hostPower struct {
	res  slottable.ResID // 0 when the reservation was empty (nothing to hold)
	down time.Time       // shutting down from
	off  time.Time       // off from
	boot time.Time       // booting from; zero: no boot planned
	on   time.Time       // on from (with boot)
	// disabled: the host was closed (taken out of service) when it was
	// switched off; switching it on leaves it closed.
	disabled bool
}

// powerStates is the scheduler's power bookkeeping.
type powerStates struct {
	boot, shutdown time.Duration
	hosts          map[slottable.HostID]*hostPower
	pending        []slottable.HostID        // hosts with a boot planned, to forget once on
	evac           map[slottable.HostID]bool // closed by Evacuate: value is whether it was closed before
	planned        []Boot                    // boots planned by the scheduler itself, for TakeBoots (bootrestart.go)
}

func (p *powerStates) init() {
	if p.hosts == nil {
		p.hosts = map[slottable.HostID]*hostPower{}
		p.evac = map[slottable.HostID]bool{}
	}
}

// SetPowerTimes sets how long hosts take to boot and to shut down (both 0
// in a new scheduler); negative times count as 0.
func (s *Scheduler) SetPowerTimes(boot, shutdown time.Duration) {
	s.power.boot, s.power.shutdown = max(boot, 0), max(shutdown, 0)
}

// PowerTimes returns the boot and shutdown times.
func (s *Scheduler) PowerTimes() (boot, shutdown time.Duration) {
	return s.power.boot, s.power.shutdown
}

// PowerState is host h's power state at t, as planned now (a host the
// scheduler was never told about is on).
func (s *Scheduler) PowerState(h slottable.HostID, t time.Time) PowerState {
	p := s.power.hosts[h]
	switch {
	case p == nil:
		return PowerOn
	case !p.boot.IsZero() && !t.Before(p.on):
		return PowerOn
	case !p.boot.IsZero() && !t.Before(p.boot):
		return PowerBooting
	case !t.Before(p.off):
		return PowerOff
	case !t.Before(p.down):
		return PowerShuttingDown
	}
	return PowerOn
}

// BootPlanned reports whether host h is switched off with a boot planned
// (or in progress), and when it boots and when it will be on.
func (s *Scheduler) BootPlanned(h slottable.HostID) (boot, on time.Time, ok bool) {
	p := s.power.hosts[h]
	if p == nil || p.boot.IsZero() {
		return time.Time{}, time.Time{}, false
	}
	return p.boot, p.on, true
}

// Evacuating reports whether host h is being emptied by Evacuate.
func (s *Scheduler) Evacuating(h slottable.HostID) bool {
	_, ok := s.power.evac[h]
	return ok
}

// MarkOff records that host h is off from now, without shutting down (a
// cluster that starts with its hosts off). It returns ErrUnknownHost,
// ErrHostBusy or ErrPowerTransition as PowerOff does.
func (s *Scheduler) MarkOff(now time.Time, h slottable.HostID) error {
	s.setNow(now)
	return s.powerOff(now, h, 0)
}

// PowerOff switches host h off at now: it shuts down until now plus the
// shutdown time, then is off. Only a host with no reservation from now on
// can be switched off (ErrHostBusy). Switching off a host that is off or
// shutting down does nothing; a host with a boot planned or in progress
// gives ErrPowerTransition. The host is closed to new placements; it takes
// them again when it is switched on.
//
// The power methods do not advance the scheduler (so that switching many
// hosts costs no planning in between): call them after Advance(now).
func (s *Scheduler) PowerOff(now time.Time, h slottable.HostID) error {
	s.setNow(now)
	return s.powerOff(now, h, s.power.shutdown)
}

func (s *Scheduler) powerOff(now time.Time, h slottable.HostID, shutdown time.Duration) error {
	host, ok := s.table.Host(h)
	if !ok {
		return fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	s.power.init()
	if p := s.power.hosts[h]; p != nil {
		if p.boot.IsZero() {
			return nil // off, or on its way there
		}
		if now.Before(p.on) {
			return fmt.Errorf("host %s is %s until %s: %w", host.Name, s.PowerState(h, now), FormatTime(p.on), ErrPowerTransition)
		}
		s.forgetPower(h) // on since p.on
	}
	if rs := s.table.ReservationsOn(h, now, PowerForever); len(rs) > 0 {
		return fmt.Errorf("host %s: %d reservations (lease %d first): %w", host.Name, len(rs), rs[0].Lease, ErrHostBusy)
	}
	id, err := s.table.Add(slottable.Reservation{Host: h, Kind: slottable.KindPower, Start: now, End: PowerForever, Res: host.Capacity})
	if err != nil {
		return fmt.Errorf("host %s: reserving its power-off: %w", host.Name, err)
	}
	disabled := s.table.Closed(h)
	if was, ok := s.power.evac[h]; ok {
		disabled = was
		delete(s.power.evac, h)
	}
	s.power.hosts[h] = &hostPower{res: id, down: now, off: now.Add(shutdown), disabled: disabled}
	return s.table.SetClosed(h, true)
}

// PowerOn switches host h on so that it is on by at, or as soon as it can
// be: it boots from the latest of now, the end of its shutdown and at
// minus the boot time, and is on (taking new placements) from the time
// returned, when the boot is over. A host on returns now; one switched on
// already returns when it will be on, after moving its boot earlier if it
// has not begun and at asks for an earlier one. Call PlanQueue for the
// queue to see the new capacity before the next lease does.
func (s *Scheduler) PowerOn(now time.Time, h slottable.HostID, at time.Time) (time.Time, error) {
	s.setNow(now)
	if _, ok := s.table.Host(h); !ok {
		return time.Time{}, fmt.Errorf("host %d: %w", h, ErrUnknownHost)
	}
	p := s.power.hosts[h]
	if p == nil {
		return now, nil
	}
	if !p.boot.IsZero() && !p.boot.After(now) {
		return p.on, nil // booting already
	}
	start := now
	if p.off.After(start) {
		start = p.off
	}
	if b := at.Add(-s.power.boot); b.After(start) {
		start = b
	}
	ready := start.Add(s.power.boot)
	if !p.boot.IsZero() && !ready.Before(p.on) {
		return p.on, nil // planned to be on by then
	}
	if r, ok := s.table.Get(p.res); ok {
		if ready.After(r.Start) {
			if err := s.table.SetEnd(p.res, ready); err != nil {
				return time.Time{}, err
			}
		} else {
			_ = s.table.Remove(p.res)
			p.res = 0
		}
	}
	if p.boot.IsZero() {
		s.power.pending = append(s.power.pending, h)
	}
	p.boot, p.on = start, ready
	if err := s.table.SetClosed(h, p.disabled); err != nil {
		return time.Time{}, err
	}
	return ready, nil
}

// PlanQueue has the best-effort queue planned again at the next call
// (Advance, Submit...), as when capacity is freed: after switching hosts
// on for the queue. PowerOn does not do it by itself, so that a local
// lease hosts were switched on for is placed before the queue takes them.
func (s *Scheduler) PlanQueue() {
	if len(s.queue) > 0 {
		s.dirty = true
	}
}

// expirePower forgets the power cycles of hosts that are on by now: their
// power reservations are over.
func (s *Scheduler) expirePower(now time.Time) {
	if len(s.power.pending) == 0 {
		return
	}
	var keep, done []slottable.HostID
	for _, h := range s.power.pending {
		p := s.power.hosts[h]
		switch {
		case p == nil || p.boot.IsZero():
		case p.on.After(now):
			keep = append(keep, h)
		default:
			done = append(done, h)
		}
	}
	// forgetPower deletes from s.power.pending: not while walking it.
	s.power.pending = keep
	for _, h := range done {
		s.forgetPower(h)
	}
}

// forgetPower drops host h's power cycle and reservation (it is on).
func (s *Scheduler) forgetPower(h slottable.HostID) {
	if p := s.power.hosts[h]; p != nil && p.res != 0 {
		_ = s.table.Remove(p.res)
	}
	delete(s.power.hosts, h)
	if i := slices.Index(s.power.pending, h); i >= 0 {
		s.power.pending = slices.Delete(s.power.pending, i, i+1)
	}
}

// checkPower reports a power reservation the table does not hold, or one
// that does not take its host's whole capacity.
func (s *Scheduler) checkPower() error {
	for h, p := range s.power.hosts {
		if p.res == 0 {
			continue
		}
		r, ok := s.table.Get(p.res)
		host, _ := s.table.Host(h)
		if !ok || r.Host != h || r.Kind != slottable.KindPower || !slices.Equal(r.Res, host.Capacity) {
			return fmt.Errorf("host %d: power reservation %d missing or wrong (%+v)", h, p.res, r)
		}
	}
	return nil
}

// Queue returns the IDs of the leases in the best-effort queue (queued,
// planned but not begun, suspended), in priority order.
func (s *Scheduler) Queue() []LeaseID { return slices.Clone(s.queue) }
