package daemon

// Host records: the power state each host is in (with its energy so far)
// and whether it is open to placements.

import (
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// walk takes host through the power cycle (off, booting, on, shutting
// down) to state at now, through the states between at once: a boot that
// failed goes on and down in no time, a switch-off that failed off and
// up.
func (p *powerMgr) walk(now time.Time, host *host, state drivers.PowerState) {
	cur := meterState(host.Power)
	for i := 0; i < 4 && cur != state; i++ {
		if energy.Legal(cur, state) {
			cur = state
		} else {
			cur = energy.Next(cur)
		}
		p.set(now, host, cur)
	}
}

// set records that host entered state at now: its record (with the
// energy so far) and the meter (every host is metered from the start or
// from when it joined: addHost).
func (p *powerMgr) set(now time.Time, host *host, state drivers.PowerState) {
	if err := p.meter.Set(now, host.Name, state); err != nil {
		p.d.log.WithError(err).WithField("host", host.Name).Warn("energy meter")
	}
	p.cached = nil
	host.Power = string(state)
	host.Energy = p.energy(now, host.Name)
}

// setEnabled applies host h's enabled and up flags to the scheduler: a
// host out of service is closed; one in service is opened, unless it is
// switched off (switching it on opens it).
func (d *Daemon) setEnabled(t *tx, h slottable.HostID) error {
	host := d.hosts[h]
	open := host.Enabled && host.Up && !host.Retired
	if _, _, planned := d.sched.BootPlanned(h); open && !planned && d.sched.PowerState(h, t.now) != scheduler.PowerOn {
		return nil
	}
	acts, err := d.sched.SetHostEnabled(t.now, h, open)
	t.acts = append(t.acts, acts...)
	return err
}

// leaseUse is what leases hold on host h now (its power reservation, when
// it is off, not counted).
func (d *Daemon) leaseUse(h slottable.HostID, now time.Time) slottable.Resources {
	out := make(slottable.Resources, d.table.Dims())
	for _, r := range d.table.ReservationsOn(h, now, now.Add(time.Nanosecond)) {
		if r.Lease == 0 {
			continue
		}
		for j, v := range r.Res {
			out[j] += v
		}
	}
	return out
}
