package daemon

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// A panic in a pass (in an event, or in the scheduler as it advances)
// may leave the scheduler half changed: it changes in place. Such a pass
// is thrown away. Nothing of it is committed or enacted; the callers
// waiting for its events get api.ErrNotApplied (500); events without a
// caller (driver completions and the like) are lost. The hosts, the slot
// table, the scheduler, the energy controller and the emulation are
// restored from the store the way a start restores them (restore), and
// the loop carries on. What runs outside the loop carries on too: the
// executor's operations and the power switches in progress were decided
// by passes that were committed, and their outcomes come back as events.
// If the state cannot be restored the daemon stops (Run returns the
// error) rather than run on a half state.

// passPanic is a panic caught in a pass.
type passPanic struct {
	value any
	stack []byte
	stage string // where in the pass
}

// decide runs a pass's decisions (everything before the commit); a panic
// in any of them is caught and returned.
func (d *Daemon) decide(t *tx, evs []event) (res []result, pp *passPanic) {
	stage := "before the events"
	defer func() {
		if r := recover(); r != nil {
			pp = &passPanic{value: r, stack: debug.Stack(), stage: stage}
		}
	}()
	d.power.beforeAdvance(t) // powerswitch.go: boots done, failed or late
	d.lateOps(t)             // oplate.go: operations that outlast their phase
	t.acts = append(t.acts, d.sched.Advance(t.now)...)
	d.adm.ends(t) // admission.go: leases done before the requests
	res = make([]result, len(evs))
	for i, ev := range evs {
		stage = fmt.Sprintf("event %d of %d", i+1, len(evs))
		res[i].v, res[i].err = ev.fn(t)
	}
	stage = "after the events"
	d.emu.submitDue(d, t)
	t.acts = append(t.acts, d.sched.Advance(t.now)...)
	t.acts = append(t.acts, d.power.step(t.now)...) // energyhooks.go
	d.adm.tick(t)                                   // admission.go: the ends, the limit when due
	d.trackAvailability(t)                          // availability.go
	return res, nil
}

// recoverPass throws away a pass that panicked (see above).
func (d *Daemon) recoverPass(t *tx, evs []event, pp *passPanic) error {
	d.m.passPanics.Inc()
	d.log.WithField("panic", fmt.Sprint(pp.value)).WithField("stage", pp.stage).
		WithField("now", t.now.Format(time.RFC3339Nano)).WithField("events", len(evs)).
		WithField("stack", string(pp.stack)).
		Error("pass panicked: nothing of it is committed; restoring the state from the store")
	err := d.rebuild()
	reply := fmt.Errorf("%w (panic: %v)", api.ErrNotApplied, pp.value)
	if err != nil {
		err = fmt.Errorf("restoring the state from the store after a panic in the scheduling loop: %w", err)
		d.setHealth(err)
		reply = fmt.Errorf("%v: %w", err, api.ErrUnavailable)
	}
	for _, ev := range evs {
		if ev.reply != nil {
			ev.reply <- result{err: reply}
		}
	}
	if err != nil {
		return err
	}
	d.log.Warn("state restored from the store after a panic: the loop carries on")
	d.lastChange = time.Now()
	d.updateGauges(d.clk.Now())
	return nil
}

// rebuild throws away the hosts, the slot table, the scheduler, the
// energy controller and the emulation's progress, and restores them from
// the store (as New does).
func (d *Daemon) rebuild() error {
	saved, err := loadChecked(d.store)
	if err != nil {
		return err
	}
	d.hosts, d.names = nil, map[string]slottable.HostID{}
	d.written, d.hostsWritten = map[scheduler.LeaseID]string{}, map[string]string{}
	d.revs = map[scheduler.LeaseID]scheduler.Revision{}
	d.forgotten, d.restoreActs = nil, nil
	// Finished leases come back from the store too (finished.go).
	d.over, d.tally, d.leaving = map[scheduler.LeaseID]overSummary{}, overTally{}, nil
	d.rewrite = map[scheduler.LeaseID][]byte{}
	ctx, cancel := context.WithTimeout(d.work.ctx, d.cfg.Daemon.OpTimeout)
	defer cancel()
	if err := d.restore(ctx, saved); err != nil {
		return err
	}
	if err := d.power.restart(d.clk.Now()); err != nil {
		return fmt.Errorf("power management: %w", err)
	}
	if d.emu, err = newEmulation(d, saved); err != nil {
		return err
	}
	if err := d.setupAdmission(saved); err != nil { // admission.go
		return err
	}
	d.exec.enact(d.restoreActs) // VMs a repair stopped (persist.go)
	d.restoreActs = nil
	return nil
}
