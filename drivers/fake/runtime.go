package fake

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// SetRunTime makes the VMs of lease exit by themselves once each has been
// running for run in all (the time spent running, summed across
// suspensions; a VM's clock stops when an operation that pauses or stops
// it begins, and starts when a start or resume completes). Each emits a
// drivers.VMExited event and becomes stopped. A VM that has already run
// that long exits at once (having run what it ran). run <= 0 removes the
// limit.
func (d *Driver) SetRunTime(lease uint64, run time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	if run <= 0 {
		delete(d.limits, lease)
		d.changedLocked()
		return
	}
	d.limits[lease] = run
	now := d.clk.Now()
	for _, v := range d.sortedLocked() {
		if _, ok := d.exitAtLocked(v); ok && v.lease == lease && v.ranAt(now) >= run {
			d.exitLocked(v, now)
		}
	}
	d.changedLocked()
}

// exitLocked makes v exit by itself at t.
func (d *Driver) exitLocked(v *vm, t time.Time) {
	v.halt(t, drivers.Stopped, "exited")
	d.emitLocked(drivers.Event{Kind: drivers.VMExited, Lease: v.lease, Index: v.index, Host: v.host,
		Detail: fmt.Sprintf("ran %s", v.run)})
}

// KillVM kills VM index of lease behind bora's back: if it is running or
// paused it becomes stopped (detail "crashed") and a drivers.VMCrashed
// event is emitted. Otherwise nothing happens.
func (d *Driver) KillVM(lease uint64, index int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v := d.vms[drivers.VM{Lease: lease, Index: index}.Name()]
	if d.closed || v == nil || (v.state != drivers.Running && v.state != drivers.Paused) {
		return
	}
	v.halt(d.clk.Now(), drivers.Stopped, "crashed")
	d.emitLocked(drivers.Event{Kind: drivers.VMCrashed, Lease: lease, Index: index, Host: v.host, Detail: "killed"})
	d.changedLocked()
}

// AddForeignVM puts a running VM named name on host, as if someone other
// than bora had started it there. List reports it only if its name is
// one bora could have made (drivers.ParseName); host is not checked. A VM
// of that name already there is replaced.
func (d *Driver) AddForeignVM(host, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	lease, index, ok := drivers.ParseName(name)
	d.vms[name] = &vm{
		name: name, lease: lease, index: index, bora: ok,
		host: host, state: drivers.Running, since: d.clk.Now(),
	}
	d.changedLocked()
}

// Inject adds a fault, as if it were in Config.Faults; a host loss
// happens f.After from now. Errors are *fielderr.Error for the
// field "fault", or ErrClosed.
func (d *Driver) Inject(f Fault) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	known := make(map[string]bool, len(d.hosts))
	for name := range d.hosts {
		known[name] = true
	}
	if err := f.validate("fault", known); err != nil {
		return err
	}
	d.addFaultLocked(f, d.clk.Now())
	d.poke()
	return nil
}

// addFaultLocked adds a validated fault; now is when a host loss's After
// starts.
func (d *Driver) addFaultLocked(f Fault, now time.Time) {
	if f.Op == OpHostLoss {
		d.losses = append(d.losses, loss{host: f.Host, at: now.Add(f.After)})
		return
	}
	d.faults = append(d.faults, &fault{Fault: f})
}

// exitAtLocked is when v exits by itself, if it is running with a limit.
func (d *Driver) exitAtLocked(v *vm) (time.Time, bool) {
	limit, ok := d.limits[v.lease]
	if !ok || !v.bora || v.state != drivers.Running || v.since.IsZero() || !v.frozen.IsZero() {
		return time.Time{}, false
	}
	return v.since.Add(limit - v.run), true
}

// nextDeadlineLocked is the earliest pending exit or host loss.
func (d *Driver) nextDeadlineLocked() (next time.Time, ok bool) {
	consider := func(t time.Time) {
		if !ok || t.Before(next) {
			next, ok = t, true
		}
	}
	for _, l := range d.losses {
		consider(l.at)
	}
	for _, v := range d.vms {
		if t, due := d.exitAtLocked(v); due {
			consider(t)
		}
	}
	return next, ok
}

// timerLoop makes exits and host losses happen on time. It keeps one
// timer armed for the earliest deadline, and arms an earlier one only
// when a change brings the deadline forward (the clock cannot cancel a
// timer, so a timer that fires for nothing just leads to re-arming).
func (d *Driver) timerLoop() {
	defer d.wg.Done()
	var fire <-chan time.Time
	var armed time.Time
	for {
		d.mu.Lock()
		next, ok := d.nextDeadlineLocked()
		d.mu.Unlock()
		if ok && (fire == nil || next.Before(armed)) {
			armed = next
			fire = d.clk.After(next.Sub(d.clk.Now()))
		}
		select {
		case <-d.done:
			return
		case <-d.wake:
		case <-fire:
			fire = nil
			d.fireDue(d.clk.Now())
		}
	}
}

// fireDue applies the host losses and exits due by now, in time order
// then by lease and index.
func (d *Driver) fireDue(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	changed := false
	var rest []loss
	for _, l := range d.losses {
		if l.at.After(now) {
			rest = append(rest, l)
			continue
		}
		d.loseHostLocked(l.host)
		changed = true
	}
	d.losses = rest
	for _, v := range d.sortedLocked() {
		at, ok := d.exitAtLocked(v)
		if !ok || at.After(now) {
			continue
		}
		d.exitLocked(v, at)
		changed = true
	}
	if changed {
		d.changedLocked()
	}
}

// loseHostLocked takes host down: a drivers.HostDown event, then every VM
// on it vanishes, with a drivers.VMCrashed event for each of bora's.
func (d *Driver) loseHostLocked(name string) {
	h := d.hosts[name]
	if h == nil || !h.up {
		return
	}
	h.up = false
	d.log.WithFields(logrus.Fields{"host": name}).Warn("fake host lost")
	d.emitLocked(drivers.Event{Kind: drivers.HostDown, Host: name, Detail: "injected host loss"})
	for _, v := range d.sortedLocked() {
		if v.host != name {
			continue
		}
		delete(d.vms, v.name)
		v.gen++
		if v.bora {
			d.emitLocked(drivers.Event{Kind: drivers.VMCrashed, Lease: v.lease, Index: v.index, Host: name,
				Detail: fmt.Sprintf("host %s lost while %s", name, v.state)})
		}
	}
}
