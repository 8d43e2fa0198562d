package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// op is one driver operation for one lease.
type op struct {
	kind  scheduler.ActionOp
	lease scheduler.LeaseID
	vms   []drivers.VM
	from  []string      // migrate: where the images are
	run   time.Duration // start: how long the VMs really run (emulation), 0 = until stopped
	call  *sourceCall   // opAdopt, opReject: the call to the lease source (sourcecalls.go)
}

// executor runs operations: one at a time per lease, in the order the
// scheduler decided them, leases in parallel.
type executor struct {
	d      *Daemon
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	queues map[scheduler.LeaseID][]op
	// flights is the operation in progress of each busy lease (oplate.go).
	flights map[scheduler.LeaseID]*flight
	wg      sync.WaitGroup
	limits  opLimits // guarded by mu: a reload changes them
	// calling counts the busy leases whose operation is in a driver call
	// (not queued behind another, nor held by awaitBoots or awaitLate).
	calling int
}

// opLimits bound driver operations.
type opLimits struct {
	timeout time.Duration
	retries int
	grace   time.Duration
}

func (e *executor) setLimits(l opLimits) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.limits = l
}

func (e *executor) getLimits() opLimits {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.limits
}

func newExecutor(d *Daemon) *executor {
	ctx, cancel := context.WithCancel(context.Background())
	c := d.cfg.Daemon
	return &executor{d: d, ctx: ctx, cancel: cancel, queues: map[scheduler.LeaseID][]op{},
		flights: map[scheduler.LeaseID]*flight{},
		limits:  opLimits{timeout: c.OpTimeout, retries: c.OpRetries, grace: c.ShutdownGrace}}
}

// runTimer is implemented by drivers that emulate VMs ending by
// themselves (the fake driver).
type runTimer interface {
	SetRunTime(lease uint64, run time.Duration)
}

// enact turns actions into operations (in the loop: it reads leases)
// and queues them after first.
func (e *executor) enact(acts []scheduler.Action, first ...op) {
	ops := first
	for _, a := range acts {
		if a.Op == scheduler.ActRun {
			continue // start and resume leave the VMs running
		}
		o, ok := e.d.opFor(a)
		if !ok {
			continue
		}
		names := make([]string, len(o.vms))
		for i, v := range o.vms {
			names[i] = v.Host
		}
		log := e.d.log.WithField("lease_id", a.Lease).WithField("at", a.At.Format(time.DateTime)).
			WithField("hosts", strings.Join(names, ","))
		msg := string(a.Op)
		if st, ok := e.d.leaseState(a.Lease); a.Op == scheduler.ActDone && ok {
			// The lease is over, not necessarily done: say how it ended
			// (a restart cleaning up after a cancelled lease said "done").
			log, msg = log.WithField("state", string(st)), "lease over ("+string(st)+"): cleaning up its VMs"
		}
		log.Info(msg)
		ops = append(ops, o)
	}
	e.push(ops...)
}

// push queues a pass's operations. All of them are recorded as in flight
// before any worker starts: a start must see the clean-up of another
// lease's VMs on its hosts that the same pass decided, whatever their
// order in it (awaitLate).
func (e *executor) push(ops ...op) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx.Err() != nil {
		return // stopping: the operations are re-enacted on the next start
	}
	var start []scheduler.LeaseID
	for _, o := range ops {
		q, busy := e.queues[o.lease]
		e.queues[o.lease] = append(q, o)
		if !busy {
			e.takeOffLocked(o) // before the next pass can look (oplate.go)
			start = append(start, o.lease)
		}
	}
	for _, id := range start {
		e.wg.Add(1)
		go e.worker(id)
	}
}

func (e *executor) worker(id scheduler.LeaseID) {
	defer e.wg.Done()
	for {
		e.mu.Lock()
		q := e.queues[id]
		if len(q) == 0 || e.ctx.Err() != nil {
			e.landLocked(id)
			delete(e.queues, id)
			e.mu.Unlock()
			return
		}
		o := q[0]
		e.takeOffLocked(o)
		e.mu.Unlock()
		err := e.do(o)
		e.mu.Lock()
		e.landLocked(id)
		if err != nil && o.kind == opAdopt {
			e.queues[id] = e.queues[id][:1] // the VMs are not the lease's: nothing queued behind can be done
		}
		e.queues[id] = e.queues[id][1:]
		e.mu.Unlock()
		switch {
		case e.ctx.Err() != nil:
		case o.call != nil:
			e.d.post(func(t *tx) { e.d.callDone(t, *o.call, err) }) // sourcecalls.go
		case err != nil:
			e.d.post(func(t *tx) { e.d.opFailed(t, o, err) })
		}
	}
}

// do runs an operation, retrying it (operations are idempotent).
func (e *executor) do(o op) error {
	lim := e.getLimits()
	log := e.d.log.WithField("lease_id", o.lease).WithField("op", string(o.kind))
	if err := e.awaitBoots(o, lim); err != nil {
		return err
	}
	if err := e.awaitLate(o, lim); err != nil {
		return err
	}
	e.began(o.lease, e.d.clk.Now())
	var err error
	for attempt := 0; attempt <= lim.retries; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			case <-e.ctx.Done():
				return e.ctx.Err()
			}
		}
		ctx, cancel := context.WithTimeout(e.ctx, lim.timeout)
		began := time.Now()
		e.countCall(+1)
		err = e.call(ctx, o, lim)
		e.countCall(-1)
		cancel()
		e.d.m.ops.WithLabelValues(string(o.kind), outcome(err)).Inc()
		if err == nil {
			log.WithField("took", time.Since(began).Round(time.Millisecond)).Debug("done")
			return nil
		}
		log.WithError(err).WithField("attempt", attempt+1).Warn("operation failed")
	}
	return err
}

// awaitBoots holds an operation that puts VMs on hosts until those hosts
// have booted (a boot slower than planned), for up to the operation
// timeout; a boot that failed fails the operation.
func (e *executor) awaitBoots(o op, lim opLimits) error {
	switch o.kind {
	case scheduler.ActStart, scheduler.ActResume, scheduler.ActMigrate:
	default:
		return nil
	}
	names := make([]string, 0, len(o.vms))
	for _, vm := range o.vms {
		names = append(names, vm.Host)
	}
	ctx, cancel := context.WithTimeout(e.ctx, lim.timeout)
	defer cancel()
	return e.d.power.awaitBoots(ctx, names)
}

func outcome(err error) string {
	if err != nil {
		return "failed"
	}
	return "ok"
}

func (e *executor) call(ctx context.Context, o op, lim opLimits) error {
	drv := e.d.drv
	switch o.kind {
	case scheduler.ActStart:
		if rt, ok := drv.(runTimer); ok && o.run > 0 {
			rt.SetRunTime(o.lease, o.run)
		}
		return drv.Start(ctx, o.vms)
	case scheduler.ActSuspend:
		return drv.Suspend(ctx, o.vms)
	case scheduler.ActMigrate:
		return drv.Migrate(ctx, o.vms, o.from)
	case scheduler.ActResume:
		return drv.Resume(ctx, o.vms)
	case scheduler.ActStop:
		return drv.Stop(ctx, o.vms)
	case scheduler.ActShutdown:
		return drv.Shutdown(ctx, o.vms, lim.grace)
	case scheduler.ActDone:
		return drv.Cleanup(ctx, o.vms)
	case opAdopt, opReject:
		return e.d.callSource(ctx, o)
	}
	return fmt.Errorf("unknown operation %q", o.kind)
}

// stop lets operations in progress finish (up to timeout), then cancels
// them; queued ones are dropped (re-enacted on the next start).
func (e *executor) stop(timeout time.Duration) {
	e.mu.Lock()
	for id, q := range e.queues {
		if len(q) > 1 {
			e.queues[id] = q[:1]
		}
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		e.d.log.Warn("operations still running at shutdown: cancelled")
	}
	e.cancel()
	<-done
}

// busy is how many leases have operations queued or running.
func (e *executor) busy() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queues)
}

func (e *executor) countCall(n int) {
	e.mu.Lock()
	e.calling += n
	e.mu.Unlock()
}

// inCalls is how many busy leases have their operation in a driver call;
// busy() - inCalls() are queued, or held until boots or clean-ups end.
func (e *executor) inCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calling
}

// sharesHost reports whether one of vms is on one of hosts.
func sharesHost(hosts []string, vms []drivers.VM) bool {
	for _, v := range vms {
		if slices.Contains(hosts, v.Host) {
			return true
		}
	}
	return false
}

// opFor builds the operation for an action (in the loop).
func (d *Daemon) opFor(a scheduler.Action) (op, bool) {
	l, err := d.lookup(a.Lease) // a finished lease: the clean-up of VMs left over
	if err != nil {
		d.log.WithError(err).WithField("lease_id", a.Lease).Error(string(a.Op))
	}
	if l == nil {
		return op{}, false
	}
	o := op{kind: a.Op, lease: a.Lease, vms: d.vms(l, a.Hosts)}
	if len(o.vms) == 0 {
		return op{}, false
	}
	switch a.Op {
	case scheduler.ActMigrate:
		for _, h := range a.From {
			o.from = append(o.from, d.hosts[h].Name)
		}
	case scheduler.ActStart:
		if l.Req.Real > 0 && l.Req.Real < l.Req.Duration {
			o.run = l.Req.Real
		}
	}
	return o, true
}

func (d *Daemon) vms(l *scheduler.Lease, hosts []slottable.HostID) []drivers.VM {
	out := make([]drivers.VM, 0, len(hosts))
	for i, h := range hosts {
		if h < 0 || int(h) >= len(d.hosts) {
			continue
		}
		out = append(out, drivers.VM{Lease: l.ID, Index: i, Host: d.hosts[h].Name,
			CPU: l.Req.CPU, Memory: l.Req.Memory, Image: l.Req.Image})
	}
	return out
}

// opFailed handles an operation that failed for good (in the loop).
func (d *Daemon) opFailed(t *tx, o op, err error) {
	msg := fmt.Sprintf("%s failed: %v", o.kind, err)
	d.errs[o.lease] = append(d.errs[o.lease], fmt.Sprintf("%s %s", t.now.Format(time.RFC3339), msg))
	l := d.sched.Lease(o.lease)
	if l == nil || l.State.Terminal() {
		d.log.WithField("lease_id", o.lease).Warn(msg) // stop or clean-up of a lease that is over
		return
	}
	switch o.kind {
	case scheduler.ActStop, scheduler.ActShutdown, scheduler.ActDone:
		d.log.WithField("lease_id", o.lease).Warn(msg)
		return
	}
	d.log.WithField("lease_id", o.lease).Error(msg)
	acts, ferr := d.sched.Fail(t.now, o.lease, msg)
	if ferr != nil {
		return
	}
	t.acts = append(t.acts, acts...)
	t.mutated = true
}
