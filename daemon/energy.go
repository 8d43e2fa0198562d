package daemon

import (
	"context"
	"errors"
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

	mu      sync.Mutex       // guards what the driver calls' goroutines and the executor share:
	results []switchResult   // outcomes not yet applied
	gates   map[string]*gate // hosts booting: the executor waits for them
}

// switching is a driver call in progress.
type switching struct {
	seq  int
	on   bool
	done chan struct{} // closed once its result is in results
}

// switchResult is a driver call's outcome.
type switchResult struct {
	h   slottable.HostID
	seq int
	on  bool
	err error
}

// gate is a host booting: closed when the boot is over, err set if it
// failed.
type gate struct {
	done chan struct{}
	err  error
}

// lateWait is how long (real time) a pass waits for a boot reported
// within that time of its planned end before taking it for late: the
// driver's call and the loop may wake at the same instant.
const lateWait = 50 * time.Millisecond

// maxOffBackoff bounds the wait before a host whose switch-off failed is
// switched off again.
const maxOffBackoff = time.Hour

// newPowerMgr builds the power management of d once its scheduler is
// restored; boots and shutdowns left half done by a stop are done again.
func newPowerMgr(d *Daemon) (*powerMgr, error) {
	c := d.cfg
	boot, shutdown := powerTimes(c)
	now := d.clk.Now()
	p := &powerMgr{d: d, alpha: c.Energy.WaitingFactor, base: map[string]float64{}, planned: map[slottable.HostID]time.Time{},
		now: now, inflight: map[slottable.HostID]*switching{}, late: map[slottable.HostID]time.Time{},
		offFails: map[slottable.HostID]int{}, offRetry: map[slottable.HostID]time.Time{},
		onFails: map[slottable.HostID]int{}, onRetry: map[slottable.HostID]time.Time{}, gates: map[string]*gate{},
		loads: map[string]float64{}}
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
	next, err := c.Energy.Cron()
	if err != nil {
		return nil, err
	}
	cc := energyctl.Config{Alpha: c.Energy.WaitingFactor, Tick: c.Energy.Tick, Next: next, Start: now, NoConsolidation: !c.Energy.Consolidate, ExternalArrivals: c.Energy.ExternalArrivals,
		InService: p.inService, MayOff: p.mayOff, Hooks: energyctl.Hooks{SwitchedOn: p.switchedOn, SwitchedOff: p.switchedOff}}
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
	for i, h := range d.hosts {
		if !h.IdleSince.IsZero() {
			p.ctl.RestoreIdle(slottable.HostID(i), h.IdleSince) // idle time goes on across a restart
		}
	}
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

// mayOff reports whether the controller may switch host h off: not while
// the wait after a failed switch-off runs.
func (p *powerMgr) mayOff(h slottable.HostID) bool {
	return !p.now.Before(p.offRetry[h])
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
	return p.drv != nil && host.Enabled && host.Up && !host.Retired && !p.now.Before(p.onRetry[h])
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
// the driver is done (apply). While it boots, the executor holds the
// operations that put VMs on it (awaitBoots).
func (p *powerMgr) drive(h slottable.HostID, on bool) {
	host := p.d.hosts[h]
	now := p.d.clk.Now()
	via, to := energy.Booting, energy.On
	if !on {
		via, to = energy.ShuttingDown, energy.Off
	}
	p.walk(now, host, via)
	if p.drv == nil {
		p.walk(now, host, to)
		return
	}
	p.d.log.WithField("host", host.Name).WithField("component", "power").Infof("switching %s", to)
	p.seq++
	sw := &switching{seq: p.seq, on: on, done: make(chan struct{})}
	p.inflight[h] = sw
	if on {
		p.openGate(host.Name)
	}
	name, timeout := host.Name, p.d.cfg.Daemon.OpTimeout
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var err error
		if on {
			err = p.drv.PowerOn(ctx, name)
		} else {
			err = p.drv.PowerOff(ctx, name)
		}
		p.mu.Lock()
		p.results = append(p.results, switchResult{h: h, seq: sw.seq, on: on, err: err})
		p.mu.Unlock()
		close(sw.done)
		p.d.post(func(t *tx) { p.drain(t) })
	}()
}

// meterLoads gives the meter each host's CPU load, the fraction of its
// CPU that leases hold now (used, by host: what the gauges count too); a
// switched-on host draws idle watts plus that fraction of busy minus
// idle.
func (p *powerMgr) meterLoads(now time.Time, used []int64) {
	for i, h := range p.d.hosts {
		if h.CPU <= 0 || i >= len(used) {
			continue
		}
		frac := min(max(float64(used[i])/float64(h.CPU), 0), 1)
		if old, ok := p.loads[h.Name]; ok && old == frac {
			continue
		}
		if err := p.meter.SetLoad(now, h.Name, frac); err != nil {
			continue // not metered (yet)
		}
		p.loads[h.Name] = frac
		p.cached = nil
	}
}

// drain applies the driver calls' outcomes that came in.
func (p *powerMgr) drain(t *tx) {
	p.now = t.now
	p.mu.Lock()
	rs := p.results
	p.results = nil
	p.mu.Unlock()
	for _, r := range rs {
		p.apply(t, r)
	}
}

// apply applies a driver call's outcome at t.now. A boot found late
// ends in the plan when it is done (BootDone). A boot that failed leaves
// the host off, its queued leases planned elsewhere (BootFailed), and the
// controller does not switch it on again before a wait that doubles with
// each failure in a row (from energy.grace, up to an hour). A switch-off
// that failed leaves the host on and open (OffFailed), with the same
// wait before the next. An outcome overtaken by a later call for the
// same host only ends its gate.
func (p *powerMgr) apply(t *tx, r switchResult) {
	host := p.d.hosts[r.h]
	log := p.d.log.WithField("host", host.Name).WithField("component", "power")
	if sw := p.inflight[r.h]; sw == nil || sw.seq != r.seq {
		if r.on {
			p.closeGate(host.Name, r.err)
		}
		return
	}
	delete(p.inflight, r.h)
	t.mutated = true
	now := t.now
	host.PowerError = ""
	switch {
	case r.on && r.err == nil:
		p.walk(now, host, energy.On)
		delete(p.onFails, r.h)
		delete(p.onRetry, r.h)
		if planned, ok := p.late[r.h]; ok {
			// Taken for on from now rather than at the end of its last
			// delay. A boot done early is not: the plan keeps the
			// configured boot time (a wake-on-LAN command returns
			// before the host is up).
			log.WithField("late", now.Sub(planned).String()).Warn("host on, later than planned")
			delete(p.late, r.h)
			if err := p.d.sched.BootDone(now, r.h); err != nil {
				log.WithError(err).Warn("scheduler: boot done")
			}
		} else {
			log.Info("host on")
		}
		p.closeGate(host.Name, nil)
	case r.on:
		delete(p.late, r.h)
		p.walk(now, host, energy.Off)
		wait := p.backoff(r.h, p.onFails, p.onRetry)
		log.WithError(r.err).WithField("retry_in", wait.String()).Error("switching on failed: the host is off")
		host.PowerError = powerError(now, "on", r.err, wait)
		err := p.d.sched.BootFailed(now, r.h)
		if errors.Is(err, scheduler.ErrHostBusy) {
			// What could not move elsewhere (an advance reservation)
			// cannot run there either.
			for _, id := range p.d.sched.LeasesOn(r.h, now) {
				acts, ferr := p.d.sched.Fail(now, id, fmt.Sprintf("host %s failed to boot: %v", host.Name, r.err))
				if ferr == nil {
					t.acts = append(t.acts, acts...)
				}
			}
			err = p.d.sched.BootFailed(now, r.h)
		}
		if err != nil {
			log.WithError(err).Warn("scheduler: boot failed")
		}
		p.closeGate(host.Name, fmt.Errorf("host %s failed to boot: %w", host.Name, r.err))
		p.d.m.powerFailures.WithLabelValues("on").Inc()
	case r.err == nil:
		p.walk(now, host, energy.Off)
		delete(p.offFails, r.h)
		delete(p.offRetry, r.h)
		log.Info("host off")
	default:
		wait := p.backoff(r.h, p.offFails, p.offRetry)
		log.WithError(r.err).WithField("retry_in", wait.String()).Error("switching off failed: the host stays on")
		host.PowerError = powerError(now, "off", r.err, wait)
		p.walk(now, host, energy.On)
		if err := p.d.sched.OffFailed(now, r.h); err != nil {
			log.WithError(err).Warn("scheduler: switch-off failed")
		}
		p.d.m.powerFailures.WithLabelValues("off").Inc()
	}
}

// powerError is what a host shows of a failure to switch it.
func powerError(now time.Time, to string, err error, wait time.Duration) string {
	return fmt.Sprintf("%s: switching %s failed: %v (energy management leaves the host alone until %s)",
		now.UTC().Format(time.RFC3339), to, err, now.Add(wait).UTC().Format(time.RFC3339))
}

// backoff counts a failure to switch host h (in fails) and sets, in
// retry, until when the controller leaves it alone: energy.grace (a
// minute if 0), doubled with each failure in a row, up to an hour. It
// returns the wait.
func (p *powerMgr) backoff(h slottable.HostID, fails map[slottable.HostID]int, retry map[slottable.HostID]time.Time) time.Duration {
	fails[h]++
	wait := p.d.cfg.Energy.Grace
	if wait <= 0 {
		wait = time.Minute
	}
	for i := 1; i < fails[h] && wait < maxOffBackoff; i++ {
		wait *= 2
	}
	wait = min(wait, maxOffBackoff)
	retry[h] = p.now.Add(wait)
	return wait
}

// beforeAdvance runs at the start of every pass, before the scheduler
// advances: the driver's outcomes are applied, and a host whose boot was
// planned to be over by now but that the driver has not reported on is
// given more time (Scheduler.DelayBoot, by a quarter of the boot time at
// least a second, again at each pass until it is on): what was planned
// there moves, and the executor waits for it.
func (p *powerMgr) beforeAdvance(t *tx) {
	p.now = t.now
	p.drain(t)
	for h, sw := range p.inflight {
		if !sw.on {
			continue
		}
		boot, on, ok := p.d.sched.BootPlanned(h)
		if !ok || boot.After(t.now) || on.After(t.now) {
			continue
		}
		select {
		case <-sw.done:
		case <-time.After(lateWait):
		}
		p.drain(t)
		if p.inflight[h] != sw {
			continue
		}
		if _, ok := p.late[h]; !ok {
			p.late[h] = on
			p.d.m.bootsLate.Inc()
			p.d.log.WithField("host", p.d.hosts[h].Name).WithField("component", "power").Warn("host still booting after the planned boot time: waiting for it")
		}
		bootTime, _ := p.d.sched.PowerTimes()
		step := max(bootTime/4, time.Second)
		if _, err := p.d.sched.DelayBoot(t.now, h, t.now.Add(step)); err != nil {
			p.d.log.WithError(err).WithField("host", p.d.hosts[h].Name).Warn("scheduler: delaying a boot")
		}
		t.mutated = true
	}
}

// openGate marks host name booting for the executor.
func (p *powerMgr) openGate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g := p.gates[name]; g == nil {
		p.gates[name] = &gate{done: make(chan struct{})}
	}
}

// closeGate ends host name's boot for the executor (err: it failed).
func (p *powerMgr) closeGate(name string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g := p.gates[name]; g != nil {
		g.err = err
		close(g.done)
		delete(p.gates, name)
	}
}

// awaitBoots waits until none of hosts is booting (the executor calls it
// before putting VMs on them). It returns the error of a boot that
// failed, or ctx's.
func (p *powerMgr) awaitBoots(ctx context.Context, hosts []string) error {
	for _, name := range hosts {
		p.mu.Lock()
		g := p.gates[name]
		p.mu.Unlock()
		if g == nil {
			continue
		}
		select {
		case <-g.done:
			if g.err != nil {
				return g.err
			}
		case <-ctx.Done():
			return fmt.Errorf("waiting for host %s to boot: %w", name, ctx.Err())
		}
	}
	return nil
}

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
// boots are started and the controller runs (its tick). Each host on
// keeps when it became idle in its record (so that the grace period goes
// on across a restart). It returns what the scheduler asked for.
func (p *powerMgr) step(now time.Time) []scheduler.Action {
	p.now = now
	p.startDue(now)
	acts := append(p.acts, p.ctl.Step(now, nil)...)
	p.acts = nil
	if p.policy {
		for i, h := range p.d.hosts {
			if h.Power == string(energy.On) {
				h.IdleSince = p.ctl.IdleSince(slottable.HostID(i))
			}
		}
	}
	return acts
}

// beforeSubmit runs the controller for a local lease about to be
// submitted.
func (p *powerMgr) beforeSubmit(now time.Time, req scheduler.Request) []scheduler.Action {
	return p.ctl.BeforeSubmit(now, req)
}

// nextAt is the next planned boot, tick, or end of a boot in progress
// (to find it late).
func (p *powerMgr) nextAt() (time.Time, bool) {
	next, ok := p.ctl.NextAt(true)
	for _, at := range p.planned {
		if !ok || at.Before(next) {
			next, ok = at, true
		}
	}
	for h, sw := range p.inflight {
		if _, on, planned := p.d.sched.BootPlanned(h); sw.on && planned && (!ok || on.Before(next)) {
			next, ok = on, true
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
	fin = p.d.overWaits(fin) // finished.go
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
	delete(p.offRetry, h) // an admin's switch-off does not wait out a failed one's backoff
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
