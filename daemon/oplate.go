package daemon

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// An operation can outlast the phase the plan reserved for it: after a
// restart it is done again from the start, or the driver is slow. When a
// pass finds a lease's phase over while the executor is still doing its
// operation, the scheduler is told (OperationLate): the phase is extended
// to when the operation should end (when it began plus the phase's
// length, at least a quarter of that length from now), and what was to
// follow on its hosts moves. Meanwhile the executor does not put VMs on
// a host another lease's late suspension or shutdown, or its clean-up or
// stop, is still leaving.

// flight is the operation the executor is doing for a lease.
type flight struct {
	kind  scheduler.ActionOp
	hosts []string
	began time.Time     // on the daemon's clock, when the driver was first called; zero before
	done  chan struct{} // closed when it is over
	// Set by the loop when the operation's phase ended before it did
	// (guarded by executor.mu), with the phase's length then.
	late    bool
	planned time.Duration
}

// takeOffLocked records that operation o is the next the executor does
// for its lease (under e.mu). It is recorded when it is queued first, so
// that the pass after the one that enacted it already sees it.
func (e *executor) takeOffLocked(o op) {
	if f := e.flights[o.lease]; f != nil && f.kind == o.kind {
		return // recorded by push
	}
	f := &flight{kind: o.kind, done: make(chan struct{})}
	for _, v := range o.vms {
		f.hosts = append(f.hosts, v.Host)
	}
	e.flights[o.lease] = f
}

// landLocked records that lease id's operation is over (under e.mu).
func (e *executor) landLocked(id scheduler.LeaseID) {
	if f := e.flights[id]; f != nil {
		close(f.done)
		delete(e.flights, id)
	}
}

// began records that lease id's operation now calls the driver.
func (e *executor) began(id scheduler.LeaseID, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.flights[id]; f != nil && f.began.IsZero() {
		f.began = now
	}
}

// inFlight returns a copy of the operations in progress, by lease.
func (e *executor) inFlight() map[scheduler.LeaseID]flight {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[scheduler.LeaseID]flight, len(e.flights))
	for id, f := range e.flights {
		out[id] = *f
	}
	return out
}

// markLate marks lease id's operation late (its phase lasted planned);
// it returns the length recorded when it was first marked, and whether
// this is the first time.
func (e *executor) markLate(id scheduler.LeaseID, planned time.Duration) (time.Duration, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.flights[id]
	if f == nil {
		return planned, false
	}
	if f.late {
		return f.planned, false
	}
	f.late, f.planned = true, planned
	return planned, true
}

// leavesFirst reports whether operation f, of another lease, must be over
// before VMs go on its hosts: a clean-up or a stop (which take no time in
// the plan, so what follows them there begins at once), or a suspension
// or shutdown that is late.
func leavesFirst(f *flight) bool {
	switch f.kind {
	case scheduler.ActDone, scheduler.ActStop:
		return true
	case scheduler.ActSuspend, scheduler.ActShutdown:
		return f.late
	}
	return false
}

// awaitLate holds an operation that puts VMs on hosts while another
// lease's VMs are leaving one of them (leavesFirst), for up to the
// operation timeout.
func (e *executor) awaitLate(o op, lim opLimits) error {
	switch o.kind {
	case scheduler.ActStart, scheduler.ActResume, scheduler.ActMigrate:
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(e.ctx, lim.timeout)
	defer cancel()
	for {
		var wait *flight
		var who scheduler.LeaseID
		e.mu.Lock()
		for id, f := range e.flights {
			if id != o.lease && leavesFirst(f) && sharesHost(f.hosts, o.vms) {
				wait, who = f, id
				break
			}
		}
		e.mu.Unlock()
		if wait == nil {
			return nil
		}
		e.d.log.WithField("lease_id", o.lease).WithField("op", string(o.kind)).
			WithField("waits_for", who).Info("waiting for a late operation to leave the hosts")
		select {
		case <-wait.done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for lease %d's late %s: %w", who, wait.kind, ctx.Err())
		}
	}
}

// opLateWait is how long (real time) a pass waits for an operation whose
// phase is over to report before it is taken as late. A driver's report is
// a goroutine away: on a loaded machine 50 ms was too short, and an
// operation on time was taken as late and extended.
const opLateWait = 250 * time.Millisecond

// lateOps runs at the start of every pass, before the scheduler advances:
// an operation still in progress when its phase is planned to be over
// (given opLateWait of real time to report) is late, and the scheduler
// extends its phase.
func (d *Daemon) lateOps(t *tx) {
	fl := d.exec.inFlight()
	ids := make([]scheduler.LeaseID, 0, len(fl))
	for id := range fl {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var timer *time.Timer
	expired := false
	for _, id := range ids {
		f := fl[id]
		l := d.sched.Lease(id)
		if l == nil {
			continue
		}
		p, ok := l.Current()
		if k, known := phaseOp(p.Kind); !ok || !known || k != f.kind || p.End.After(t.now) {
			continue
		}
		if timer == nil {
			timer = time.NewTimer(opLateWait)
			defer timer.Stop()
		}
		if !expired {
			select {
			case <-f.done:
				continue
			case <-timer.C:
				expired = true
			}
		}
		select {
		case <-f.done:
			continue
		default:
		}
		d.operationLate(t, id, f, p.End.Sub(p.Start))
	}
}

// operationLate tells the scheduler that lease id's operation f outlasts
// its phase (of length planned).
func (d *Daemon) operationLate(t *tx, id scheduler.LeaseID, f flight, planned time.Duration) {
	planned, first := d.exec.markLate(id, planned)
	until := t.now.Add(planned)
	if !f.began.IsZero() {
		until = f.began.Add(planned)
	}
	if least := t.now.Add(max(planned/4, time.Second)); until.Before(least) {
		until = least
	}
	log := d.log.WithField("lease_id", id).WithField("op", string(f.kind))
	if first {
		d.m.opsLate.Inc()
		log.WithField("until", until.Format(time.DateTime)).Warn("operation still running after its reservation: the plan makes room")
	}
	if _, err := d.sched.OperationLate(t.now, id, until); err != nil {
		log.WithError(err).Warn("scheduler: extending a late operation")
	}
	t.mutated = true
}

// phaseOp is the operation that does a plan phase of kind k (see
// scheduler.PlanPhase); false for the run phase.
func phaseOp(k string) (scheduler.ActionOp, bool) {
	switch k {
	case "prepare":
		return scheduler.ActStart, true
	case "suspend":
		return scheduler.ActSuspend, true
	case "migrate":
		return scheduler.ActMigrate, true
	case "resume":
		return scheduler.ActResume, true
	case "stop":
		return scheduler.ActStop, true
	case "shutdown":
		return scheduler.ActShutdown, true
	}
	return "", false
}
