package daemon

// Switching hosts with the power driver: the driver calls run in the
// background, their outcomes are applied in the loop, failures back off,
// and boots slower than planned delay what waits for them.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

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
	p.d.work.Go("power "+string(to)+" "+name, func(run context.Context) {
		ctx, cancel := context.WithTimeout(run, timeout)
		defer cancel()
		var err error
		if on {
			err = p.drv.PowerOn(ctx, name)
		} else {
			err = p.drv.PowerOff(ctx, name)
		}
		r := switchResult{h: h, seq: sw.seq, on: on, err: err}
		p.mu.Lock()
		if err != nil && run.Err() != nil {
			// Cut short by the shutdown (no pass runs any more): not a
			// failure of the host. Its record stays booting (shutting
			// down), and the next start switches it again (resume). An
			// operation waiting for the boot gives up now.
			p.abandoned = append(p.abandoned, r)
			p.mu.Unlock()
			p.closeGate(name, fmt.Errorf("host %s: boot cut short by the shutdown: %w", name, err))
			close(sw.done)
			return
		}
		p.results = append(p.results, r)
		p.mu.Unlock()
		close(sw.done)
		p.d.post(func(t *tx) { p.drain(t) })
	})
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
