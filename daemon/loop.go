package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/scheduler"
)

// tx is one pass of the loop: what the events in it decided.
type tx struct {
	now     time.Time
	acts    []scheduler.Action
	touched []scheduler.LeaseID // leases created in this pass
	mutated bool                // something must be committed before replying
	calls   []sourceCall        // calls to the lease source to make once committed (sourcecalls.go)
	admSeen int                 // acts already looked at for the ends of leases (admission.go)
}

// event is something for the loop to do: fn runs in the loop; its result
// goes to reply (if any) once the pass is committed.
type event struct {
	fn    func(t *tx) (any, error)
	reply chan result
}

type result struct {
	v   any
	err error
}

// call runs fn in the loop and waits for its result, which is sent only
// after everything it changed is committed.
func (d *Daemon) call(ctx context.Context, fn func(t *tx) (any, error)) (any, error) {
	ev := event{fn: fn, reply: make(chan result, 1)}
	select {
	case d.events <- ev:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.done:
		return nil, fmt.Errorf("daemon stopped: %w", api.ErrUnavailable)
	}
	select {
	case r := <-ev.reply:
		return r.v, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.done:
		return nil, fmt.Errorf("daemon stopped: %w", api.ErrUnavailable)
	}
}

// post runs fn in the loop without waiting (driver completions, events).
func (d *Daemon) post(fn func(t *tx)) {
	ev := event{fn: func(t *tx) (any, error) { fn(t); return nil, nil }}
	select {
	case d.events <- ev:
	case <-d.done:
	}
}

// Run is the scheduling loop. It returns when ctx ends (after stopping the
// executor gracefully) or the store fails.
func (d *Daemon) Run(ctx context.Context) error {
	defer d.Close()
	defer close(d.done)
	d.started = d.clk.Now()
	d.work.Go("driver events", d.pumpDriverEvents)
	if d.cfg.Driver.Name == "opennebula" {
		d.work.Go("intake", func(ctx context.Context) { d.intake(ctx, d.cfg.Driver.OpenNebula.PollInterval) })
	}
	stopJobs := d.startJobs()
	defer stopJobs()
	// At shutdown the loop stops the workers before the executor; on an
	// error, here, before the jobs (whose calls end with the workers).
	defer d.stopWorkers()
	if err := d.startup(ctx); err != nil {
		return err
	}
	d.release()
	// A simulated clock holds still for simQuiet after the start too, so
	// that clients see a restarted daemon as the store left it.
	d.lastChange = time.Now()
	d.log.WithField("now", d.clk.Now().Format(time.RFC3339)).Info("scheduling loop started")
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		evs, err := d.wait(ctx, timer)
		if err != nil {
			d.log.Info("shutting down: waiting for operations in progress")
			d.stopWorkers() // no pass runs from here: what they post is never applied
			d.exec.stop(d.cfg.Daemon.ShutdownTimeout)
			d.power.flush(d.clk.Now()) // powermeter.go: the hosts' energy into their records
			if cerr := d.commitNow(); cerr != nil {
				d.log.WithError(cerr).Error("final commit")
			} else {
				d.maybeCompact(true) // finished.go: leave a compact file behind
			}
			d.log.Info("stopped")
			return nil
		}
		if err := d.pass(evs); err != nil {
			return err
		}
	}
}

// stopWorkers cancels the workers (power switches, driver events,
// intake) and waits for them up to shutdown_timeout, logging those
// still running then. Only the first call does anything.
func (d *Daemon) stopWorkers() {
	if left := d.work.stop(d.cfg.Daemon.ShutdownTimeout); len(left) > 0 {
		d.log.WithField("running", strings.Join(left, ", ")).Warn("goroutines still running at shutdown: left behind")
	}
}

// wait blocks until there are events, the scheduler (or emulation) has
// something due, or ctx ends; then it takes every event waiting.
func (d *Daemon) wait(ctx context.Context, timer *time.Timer) ([]event, error) {
	next, ok := d.nextWake()
	var evs []event
	if jump, sim := d.clk.(clock.Jumper); sim {
		// Jump to what comes next once nothing has changed for simQuiet
		// (read-only calls, like a client polling, do not hold time back).
		quiet := max(d.simQuiet-time.Since(d.lastChange), 100*time.Microsecond)
		select {
		case ev := <-d.events:
			evs = append(evs, ev)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(quiet):
			if time.Since(d.lastChange) < d.simQuiet {
				return nil, nil
			}
			if t, has := jump.NextTimer(); has && (!ok || t.Before(next)) {
				next, ok = t, true
			}
			if ok {
				jump.Set(next)
			}
			d.lastChange = time.Now()
		}
	} else {
		wall := time.Hour
		if ok {
			wall = min(d.clk.WallDuration(max(0, next.Sub(d.clk.Now()))), time.Hour)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wall)
		select {
		case ev := <-d.events:
			evs = append(evs, ev)
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	for len(evs) < 512 {
		select {
		case ev := <-d.events:
			evs = append(evs, ev)
			continue
		default:
		}
		break
	}
	return evs, nil
}

// nextWake is when the loop must run next without any event.
func (d *Daemon) nextWake() (time.Time, bool) {
	next, ok := d.sched.NextEvent()
	if t, has := d.emu.nextAt(); has && (!ok || t.Before(next)) {
		next, ok = t, true
	}
	if t, has := d.power.nextAt(); has && (!ok || t.Before(next)) { // energyhooks.go: boots, the controller's tick
		next, ok = t, true
	}
	if t, has := d.adm.nextAt(ok); has && (!ok || t.Before(next)) { // admission.go: the cron
		next, ok = t, true
	}
	return next, ok
}

// pass applies events, advances the scheduler (decide), commits, answers
// and enacts. A pass that panics is thrown away (recover.go). A store
// failure is fatal for the pass: nothing of it is enacted or
// acknowledged, and the daemon stops (the store is the truth).
func (d *Daemon) pass(evs []event) error {
	began := time.Now()
	t := &tx{now: d.clk.Now()}
	res, pp := d.decide(t, evs)
	if pp != nil {
		return d.recoverPass(t, evs, pp)
	}
	if err := d.commit(t.touched, false, t.mutated); err != nil {
		d.setHealth(err)
		for _, ev := range evs {
			if ev.reply != nil {
				ev.reply <- result{err: fmt.Errorf("state store: %v: %w", err, api.ErrUnavailable)}
			}
		}
		return fmt.Errorf("committing to the state store: %w", err)
	}
	for i, ev := range evs {
		if ev.reply != nil {
			ev.reply <- res[i]
		}
	}
	if t.mutated || len(t.acts) > 0 {
		d.lastChange = time.Now()
	}
	d.exec.enact(t.acts, callOps(t.calls)...) // sourcecalls.go: each first in its lease's queue
	d.release()
	d.maybeCompact(false) // finished.go
	d.m.decision.Observe(time.Since(began).Seconds())
	d.updateGauges(t.now)
	d.checkCapacity() // capacity.go
	return nil
}

// commitNow commits everything that differs from the store, comparing
// every live lease's saved form (not only those whose revision moved).
func (d *Daemon) commitNow() error {
	return d.commit(nil, true, true)
}

func (d *Daemon) setHealth(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.health = err
}

// Health is nil while the loop answers and the store works.
func (d *Daemon) Health(ctx context.Context) error {
	d.mu.Lock()
	h := d.health
	d.mu.Unlock()
	if h != nil {
		return h
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := d.call(ctx, func(*tx) (any, error) { return nil, nil })
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("scheduling loop does not answer: %w", api.ErrUnavailable)
	}
	return err
}
