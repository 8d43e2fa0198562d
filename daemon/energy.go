package daemon

import (
	"fmt"
	"slices"
	"sync"
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

// powerMgr is borad's power management (docs/models.md §5): the power
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

	now      time.Time                       // of the pass in progress
	inflight map[slottable.HostID]*switching // the driver calls in progress, by host
	seq      int                             // numbers the driver calls
	late     map[slottable.HostID]time.Time  // boots found late: when they were planned to end
	offFails map[slottable.HostID]int        // switch-offs failed in a row
	offRetry map[slottable.HostID]time.Time  // not switched off again before
	onFails  map[slottable.HostID]int        // boots failed in a row
	onRetry  map[slottable.HostID]time.Time  // not switched on by the controller before

	loads map[string]float64 // the CPU load the meter has for each host

	mu      sync.Mutex     // guards what the driver calls' goroutines and the executor share:
	results []switchResult // outcomes not yet applied
	// Switches cut short by the shutdown: never applied (powerswitch.go).
	abandoned []switchResult
	gates     map[string]*gate // hosts booting: the executor waits for them
}

// newPowerMgr builds the power management of d once its scheduler is
// restored; boots and shutdowns left half done by a stop are done again.
func newPowerMgr(d *Daemon) (*powerMgr, error) {
	c := d.cfg
	boot, shutdown := powerTimes(c)
	p := &powerMgr{d: d, alpha: c.Energy.WaitingFactor,
		inflight: map[slottable.HostID]*switching{}, late: map[slottable.HostID]time.Time{},
		offFails: map[slottable.HostID]int{}, offRetry: map[slottable.HostID]time.Time{},
		onFails: map[slottable.HostID]int{}, onRetry: map[slottable.HostID]time.Time{}, gates: map[string]*gate{}}
	var err error
	if p.drv, err = buildPowerDriver(d, boot, shutdown); err != nil {
		return nil, err
	}
	if err := p.restart(d.clk.Now()); err != nil {
		return nil, err
	}
	return p, nil
}

// restart builds the meter and the energy controller from the host
// records and the scheduler, and resumes the boots and shutdowns the
// records hold: at the start (newPowerMgr) and when the daemon restores
// its state after a panic (recover.go). The power driver, the switches in
// progress and the backoff after failures are kept.
func (p *powerMgr) restart(now time.Time) error {
	d, c := p.d, p.d.cfg
	boot, shutdown := powerTimes(c)
	p.now, p.base, p.planned, p.loads = now, map[string]float64{}, map[slottable.HostID]time.Time{}, map[string]float64{}
	p.acts, p.cached = nil, nil
	var err error
	model := c.Energy.PowerModel
	model.Boot, model.Shutdown = boot, shutdown
	if p.meter, err = energy.NewMeter(model, nil, now, energy.On); err != nil {
		return err
	}
	for _, h := range d.hosts {
		p.base[h.Name] = h.Energy
		if err := p.meter.AddHost(now, h.Name, meterState(h.Power)); err != nil {
			return err
		}
	}
	next, err := c.Energy.Cron()
	if err != nil {
		return err
	}
	cc := energyctl.Config{Alpha: c.Energy.WaitingFactor, Tick: c.Energy.Tick, Next: next, Start: now, NoConsolidation: !c.Energy.Consolidate, ExternalArrivals: c.Energy.ExternalArrivals,
		InService: p.inService, MayOff: p.mayOff, Hooks: energyctl.Hooks{SwitchedOn: p.switchedOn, SwitchedOff: p.switchedOff}}
	if c.Energy.SwitchOffAhead {
		m := c.Energy.PowerModel
		m.Boot, m.Shutdown = powerTimes(c)
		cc.SwitchOffAhead, cc.AheadMinGap = true, energyctl.BreakEven(m)
	}
	if c.Energy.Policy != "" {
		params, err := c.Energy.Params()
		if err != nil {
			return err
		}
		if cc.Policy, err = energy.NewPolicy(c.Energy.Policy, params); err != nil {
			return err
		}
		p.policy = true
	}
	p.ctl = energyctl.New(d.sched, cc)
	for i, h := range d.hosts {
		if !h.IdleSince.IsZero() {
			p.ctl.RestoreIdle(slottable.HostID(i), h.IdleSince) // idle time goes on across a restart
		}
	}
	p.attach()
	p.resume(now)
	return nil
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
		var faults []power.Fault
		for _, x := range c.Faults {
			faults = append(faults, power.Fault{Op: x.Op, Host: x.Host, Fail: x.Fail, Slow: x.Slow, Times: x.Times})
		}
		f.SetFaults(faults)
		for _, h := range d.hosts {
			if h.Power == string(energy.Off) || h.Power == string(energy.ShuttingDown) {
				f.SetOff(h.Name)
			}
		}
		return f, nil
	case "command":
		hosts := map[string]power.HostInfo{}
		for _, h := range d.hosts {
			hosts[h.Name] = hostInfo(d.cfg, h.Name)
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

// hostInfo is what the power commands know of host name: its address,
// MAC and BMC from the hosts section, when it is there.
func hostInfo(c config.Config, name string) power.HostInfo {
	for _, h := range c.Hosts {
		if h.Name == name {
			return h.PowerInfo()
		}
	}
	return power.HostInfo{Name: name}
}

// hostAdder is a power driver that must be told of hosts added while
// the daemon runs.
type hostAdder interface {
	AddHost(power.HostInfo) error
}

// addHost takes in a host added while the daemon runs (the VM driver
// found it): the meter counts its energy from now, and the power driver
// learns of it.
func (p *powerMgr) addHost(now time.Time, host *host) {
	if !slices.Contains(p.meter.Hosts(), host.Name) {
		if err := p.meter.AddHost(now, host.Name, meterState(host.Power)); err != nil {
			p.d.log.WithError(err).WithField("host", host.Name).Warn("energy meter")
		}
	}
	if a, ok := p.drv.(hostAdder); ok {
		if err := a.AddHost(hostInfo(p.d.cfg, host.Name)); err != nil {
			p.d.log.WithError(err).WithField("host", host.Name).Error("power driver: the new host cannot be switched")
		}
	}
	p.cached = nil
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
	fin = p.d.overWaits(fin) // finished.go
	rate, _ := energy.ViolationRate(fin, p.alpha)
	return rate
}
