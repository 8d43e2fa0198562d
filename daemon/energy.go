package daemon

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula"
	"github.com/bora-sched/bora/drivers/power"
	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/energyctl"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// powerMgr is borad's power management (models.md section 5): the power
// driver (power.driver), the meter of every host's energy, and the energy
// controller (package energyctl, energy.policy) that the simulator runs
// too. The scheduler plans with power reservations (a host off holds its
// whole capacity); the controller switches hosts through the scheduler
// and its hooks here drive the power driver: a boot planned for later (a
// host switched on in time for an advance reservation) is started when
// its time comes. Every method runs in the loop.
type powerMgr struct {
	d       *Daemon
	drv     drivers.PowerDriver // nil: power.driver none
	ctl     *energyctl.Controller
	policy  bool // an energy policy runs (energy.policy set)
	alpha   float64
	meter   *energy.Meter
	base    map[string]float64 // kWh of each host before this start
	planned map[slottable.HostID]time.Time
	acts    []scheduler.Action // what the scheduler asked for in a hook
	// The meter's per-host energy at cachedAt (hosts are listed one by
	// one; the meter gives them all at once).
	cachedAt time.Time
	cached   map[string]float64
}

// newPowerMgr builds the power management of d once its scheduler is
// restored; boots and shutdowns left half done by a stop are done again.
func newPowerMgr(d *Daemon) (*powerMgr, error) {
	c := d.cfg
	boot, shutdown := powerTimes(c)
	now := d.clk.Now()
	p := &powerMgr{d: d, alpha: c.Energy.WaitingFactor, base: map[string]float64{}, planned: map[slottable.HostID]time.Time{}}
	var err error
	if p.drv, err = buildPowerDriver(d, boot, shutdown); err != nil {
		return nil, err
	}
	model := c.Energy.PowerModel
	model.Boot, model.Shutdown = boot, shutdown
	if p.meter, err = energy.NewMeter(model, nil, now, energy.On); err != nil {
		return nil, err
	}
	for _, h := range d.hosts {
		p.base[h.Name] = h.Energy
		if err := p.meter.AddHost(now, h.Name, meterState(h.Power)); err != nil {
			return nil, err
		}
	}
	cc := energyctl.Config{Alpha: c.Energy.WaitingFactor, Tick: c.Energy.Tick, Start: now, NoConsolidation: !c.Energy.Consolidate, ExternalArrivals: c.Energy.ExternalArrivals,
		InService: p.inService, Hooks: energyctl.Hooks{SwitchedOn: p.switchedOn, SwitchedOff: p.switchedOff}}
	if c.Energy.Policy != "" {
		params, err := c.Energy.Params()
		if err != nil {
			return nil, err
		}
		if cc.Policy, err = energy.NewPolicy(c.Energy.Policy, params); err != nil {
			return nil, err
		}
		p.policy = true
	}
	p.ctl = energyctl.New(d.sched, cc)
	p.attach()
	p.resume(now)
	return p, nil
}

// powerTimes are the boot and shutdown times: power.boot and
// power.shutdown when set (the fake power driver takes them), else
// energy.boot and energy.shutdown.
func powerTimes(c config.Config) (boot, shutdown time.Duration) {
	boot, shutdown = c.Energy.Boot, c.Energy.Shutdown
	if c.Power.Boot > 0 {
		boot = c.Power.Boot
	}
	if c.Power.Shutdown > 0 {
		shutdown = c.Power.Shutdown
	}
	return boot, shutdown
}

// buildPowerDriver makes the power driver power.driver names.
func buildPowerDriver(d *Daemon, boot, shutdown time.Duration) (drivers.PowerDriver, error) {
	c := d.cfg.Power
	switch c.Driver {
	case "fake":
		f := power.NewFake(d.clk, boot, shutdown)
		for _, h := range d.hosts {
			if h.Power == string(energy.Off) || h.Power == string(energy.ShuttingDown) {
				f.SetOff(h.Name)
			}
		}
		return f, nil
	case "command":
		hosts := map[string]power.HostInfo{}
		for _, h := range d.hosts {
			hosts[h.Name] = power.HostInfo{Name: h.Name}
		}
		return power.NewCommand(power.CommandConfig{On: c.On, Off: c.Off, Status: c.Status, Timeout: c.Timeout},
			hosts, d.lg.WithField("component", "power"))
	case "opennebula":
		one, ok := d.drv.(*opennebula.Driver)
		if !ok {
			return nil, fmt.Errorf("power.driver opennebula needs driver.name opennebula")
		}
		return one.Power(), nil // one.host.status: enabled for on, offline for off
	}
	return nil, nil
}

// attach hooks the (possibly rebuilt) scheduler to the controller.
func (p *powerMgr) attach() {
	boot, shutdown := powerTimes(p.d.cfg)
	p.d.sched.SetPowerTimes(boot, shutdown)
	p.d.sched.Record = p.ctl.Record
	p.ctl.SetScheduler(p.d.sched)
}

// resume redoes the boots and shutdowns a stop interrupted and plans the
// boots the scheduler holds for later. A host recorded off that the
// scheduler does not hold off (a store written before it planned power)
// is marked off in it, if nothing is reserved there.
func (p *powerMgr) resume(now time.Time) {
	for i, h := range p.d.hosts {
		id := slottable.HostID(i)
		if boot, _, ok := p.d.sched.BootPlanned(id); ok {
			p.planned[id] = boot
			continue
		}
		switch h.Power {
		case string(energy.Booting):
			p.drive(id, true)
		case string(energy.ShuttingDown):
			p.drive(id, false)
		case string(energy.Off):
			if p.d.sched.PowerState(id, now) == scheduler.PowerOn && p.d.sched.MarkOff(now, id) != nil {
				p.set(now, h, energy.Booting) // busy: it must be on
				p.set(now, h, energy.On)
			}
		}
	}
	p.startDue(now)
}

func meterState(s string) drivers.PowerState {
	if st, err := energy.ParseState(s); err == nil {
		return st
	}
	return energy.On
}

// inService reports whether host h may be switched on by the controller.
func (p *powerMgr) inService(h slottable.HostID) bool {
	host := p.d.hosts[h]
	return p.drv != nil && host.Enabled && host.Up && !host.Retired
}

// switchedOn is the controller's hook: the boot starts now, or is planned.
func (p *powerMgr) switchedOn(h slottable.HostID, boot, _, _, _ time.Time) {
	delete(p.planned, h)
	if boot.After(p.d.clk.Now()) {
		p.planned[h] = boot
		return
	}
	p.drive(h, true)
}

// switchedOff is the controller's hook: the host shuts down now.
func (p *powerMgr) switchedOff(h slottable.HostID, _ time.Time) {
	delete(p.planned, h)
	p.drive(h, false)
}

// startDue starts the planned boots whose time has come.
func (p *powerMgr) startDue(now time.Time) {
	for h, at := range p.planned {
		if !at.After(now) {
			delete(p.planned, h)
			p.drive(h, true)
		}
	}
}

// drive switches host h on (or off) with the power driver, in the
// background: the host is booting (shutting down) now, and on (off) when
// the driver is done. A driver that fails to boot a host leaves it off
// and down (closed to new placements); one that fails to switch it off
// leaves it counted off (the scheduler keeps it closed). Both are logged.
func (p *powerMgr) drive(h slottable.HostID, on bool) {
	host := p.d.hosts[h]
	now := p.d.clk.Now()
	via, to := energy.Booting, energy.On
	if !on {
		via, to = energy.ShuttingDown, energy.Off
	}
	p.set(now, host, via)
	if p.drv == nil {
		p.set(now, host, to)
		return
	}
	log := p.d.log.WithField("host", host.Name).WithField("component", "power")
	log.Infof("switching %s", to)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), p.d.cfg.Daemon.OpTimeout)
		defer cancel()
		var err error
		if on {
			err = p.drv.PowerOn(ctx, host.Name)
		} else {
			err = p.drv.PowerOff(ctx, host.Name)
		}
		p.d.post(func(t *tx) {
			t.mutated = true
			if err == nil {
				p.set(t.now, host, to)
				log.Infof("host %s", to)
				return
			}
			log.WithError(err).Errorf("switching %s failed", to)
			if on {
				p.set(t.now, host, energy.On) // the meter's cycle: on, shutting down, off at once
				p.set(t.now, host, energy.ShuttingDown)
				p.set(t.now, host, energy.Off)
				host.Up = false
				acts, _ := p.d.sched.SetHostEnabled(t.now, h, false)
				t.acts = append(t.acts, acts...)
				return
			}
			p.set(t.now, host, energy.Off)
		})
	}()
}

// set records that host entered state at now: its record (with the
// energy so far) and the meter (which meets a host added since the start
// here).
func (p *powerMgr) set(now time.Time, host *host, state drivers.PowerState) {
	if !slices.Contains(p.meter.Hosts(), host.Name) {
		_ = p.meter.AddHost(now, host.Name, meterState(host.Power))
	}
	if err := p.meter.Set(now, host.Name, state); err != nil {
		p.d.log.WithError(err).WithField("host", host.Name).Warn("energy meter")
	}
	p.cached = nil
	host.Power = string(state)
	host.Energy = p.energy(now, host.Name)
}

// energy is a host's energy in kWh up to now, with what it drew before
// this start.
func (p *powerMgr) energy(now time.Time, name string) float64 {
	if p.cached == nil || !now.Equal(p.cachedAt) {
		_, p.cached = p.meter.Energy(now)
		p.cachedAt = now
	}
	return p.base[name] + p.cached[name]
}

// step runs in every pass, after the scheduler has advanced: planned
// boots are started and the controller runs (its tick). It returns what
// the scheduler asked for.
func (p *powerMgr) step(now time.Time) []scheduler.Action {
	p.startDue(now)
	acts := append(p.acts, p.ctl.Step(now, nil)...)
	p.acts = nil
	return acts
}

// beforeSubmit runs the controller for a local lease about to be
// submitted.
func (p *powerMgr) beforeSubmit(now time.Time, req scheduler.Request) []scheduler.Action {
	return p.ctl.BeforeSubmit(now, req)
}

// nextAt is the next planned boot or tick.
func (p *powerMgr) nextAt() (time.Time, bool) {
	next, ok := p.ctl.NextAt(true)
	for _, at := range p.planned {
		if !ok || at.Before(next) {
			next, ok = at, true
		}
	}
	return next, ok
}

// flush writes every host's energy so far into its record (before the
// final commit).
func (p *powerMgr) flush(now time.Time) {
	for _, h := range p.d.hosts {
		h.Energy = p.energy(now, h.Name)
	}
}

// violationRate is the waiting-threshold violation rate (0..1) over the
// external leases that have started.
func (p *powerMgr) violationRate() float64 {
	var fin []energy.Finished
	for _, l := range p.d.sched.Leases() {
		if l.Req.Origin == scheduler.External && !l.FirstStart.IsZero() {
			fin = append(fin, energy.Finished{Wait: l.FirstStart.Sub(l.Submitted), Duration: l.Req.Duration})
		}
	}
	rate, _ := energy.ViolationRate(fin, p.alpha)
	return rate
}

// switchHost is `bora host on|off`: switch host h on now (to be on as
// soon as it boots) or off (only with nothing reserved on it from now on).
func (p *powerMgr) switchHost(t *tx, h slottable.HostID, on bool) error {
	if p.drv == nil {
		return fmt.Errorf("power management is off (power.driver: none)")
	}
	if on {
		if p.d.sched.PowerState(h, t.now) == scheduler.PowerOn {
			return nil
		}
		p.ctl.PowerOn(t.now, h, t.now)
		p.d.sched.PlanQueue()
		return nil
	}
	if st := p.d.sched.PowerState(h, t.now); st == scheduler.PowerOff || st == scheduler.PowerShuttingDown {
		return nil
	}
	if ids := p.d.sched.LeasesOn(h, t.now); len(ids) > 0 {
		return fmt.Errorf("host holds reservations of %d leases from now on (lease %d first)", len(ids), ids[0])
	}
	if !p.ctl.PowerOff(t.now, h) {
		return fmt.Errorf("host is %s", p.d.sched.PowerState(h, t.now))
	}
	return nil
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
