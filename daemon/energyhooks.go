package daemon

// The energy controller's hooks into the loop: it is attached to the
// scheduler, asked before every pass which hosts may be switched, and
// runs its tick after the scheduler advances (the manager is energy.go).

import (
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

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
		if p.inflight[id] != nil {
			continue // being switched (a restart after a panic): its outcome comes back as an event
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
