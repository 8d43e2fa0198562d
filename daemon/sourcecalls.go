package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// What the intake tells the lease source (OpenNebula) of the leases it
// submitted: adopt their VMs (BORA_LEASE_ID), or mark them rejected with
// the reason (BORA_ERROR). Those are XML-RPC calls, slow or failing when
// oned is: the loop never makes them. The pass that submits the lease
// records the call (tell) with the lease, in the same commit (meta
// "intake"); after the commit the executor makes it, first in the
// lease's queue, so the lease's VMs are adopted before any operation on
// them. The outcome comes back to the loop (callDone), which drops the
// record; an adoption that failed cancels the lease.
//
// A stop or a crash between the commit and the call leaves the record in
// the store: the next start makes the call again (both are idempotent)
// before it re-enacts anything, and meanwhile the intake does not take
// those VMs again, though they are still on HOLD without BORA_LEASE_ID.

const (
	opAdopt  scheduler.ActionOp = "adopt"  // a sourceCall adopting the lease's VMs
	opReject scheduler.ActionOp = "reject" // a sourceCall marking them rejected
)

// sourceCall is one call to make to the lease source about lease Lease
// and its source VMs.
type sourceCall struct {
	Lease scheduler.LeaseID `json:"lease"`
	VMs   []int             `json:"vms"`
	// Reject is the reason the lease was rejected ("reason: detail"),
	// written into the VMs; empty: they are adopted into the lease.
	Reject string `json:"reject,omitempty"`
}

func (c sourceCall) op() scheduler.ActionOp {
	if c.Reject != "" {
		return opReject
	}
	return opAdopt
}

// sourceCalls are the calls decided and not known to be made yet, and
// which source VMs had their call end lately.
type sourceCalls struct {
	pending map[scheduler.LeaseID]sourceCall // in the loop
	// settled is, for the VMs whose call ended, the intake poll that was
	// running then (in the loop): that poll may have listed them before
	// their call, still unmarked.
	settled map[int]int64
	polls   atomic.Int64 // the intake's polls begun (the intake goroutine counts, the loop reads)
}

// intakeMeta is the meta record: the pending calls, by lease.
type intakeMeta struct {
	Calls []sourceCall `json:"calls,omitempty"`
}

func (c *sourceCalls) meta() intakeMeta {
	var m intakeMeta
	for _, id := range slices.Sorted(maps.Keys(c.pending)) {
		m.Calls = append(m.Calls, c.pending[id])
	}
	return m
}

// load replaces the pending calls with the store's.
func (c *sourceCalls) load(saved *store.State) error {
	var m intakeMeta
	if err := getMeta(saved, metaIntake, &m); err != nil {
		return err
	}
	c.pending = map[scheduler.LeaseID]sourceCall{}
	if c.settled == nil {
		c.settled = map[int]int64{}
	}
	for _, call := range m.Calls {
		c.pending[call.Lease] = call
	}
	return nil
}

// tell records, in pass t, a call to make once the pass is committed.
func (d *Daemon) tell(t *tx, c sourceCall) {
	d.calls.pending[c.Lease] = c
	t.calls = append(t.calls, c)
	t.mutated = true
}

// claimed reports whether one of the source VMs vms has a call pending,
// or had its call end since poll (the poll that found vms) began: such
// VMs are taken already (in the loop).
func (d *Daemon) claimed(vms []int, poll int64) bool {
	for vm, at := range d.calls.settled {
		if at < poll {
			delete(d.calls.settled, vm) // ended before this poll began: it saw them marked
		}
	}
	for _, c := range d.calls.pending {
		for _, vm := range vms {
			if slices.Contains(c.VMs, vm) {
				return true
			}
		}
	}
	for _, vm := range vms {
		if at, ok := d.calls.settled[vm]; ok && at >= poll {
			return true
		}
	}
	return false
}

// callOps are the executor's operations for calls cs.
func callOps(cs []sourceCall) []op {
	out := make([]op, 0, len(cs))
	for _, c := range cs {
		out = append(out, op{kind: c.op(), lease: c.Lease, call: &c})
	}
	return out
}

// callSource makes operation o's call to the lease source (in the
// executor).
func (d *Daemon) callSource(ctx context.Context, o op) error {
	if d.src == nil {
		return fmt.Errorf("%s: the driver takes no leases from its users", o.kind)
	}
	if o.kind == opReject {
		return d.src.Reject(ctx, o.call.VMs, o.call.Reject)
	}
	return d.src.Adopt(ctx, uint64(o.lease), o.call.VMs)
}

// pendingCalls are the calls not made yet, by lease (a start makes them
// again).
func (d *Daemon) pendingCalls() []sourceCall {
	return d.calls.meta().Calls
}

// callDone applies the outcome of call c (in the loop). An adoption that
// failed cancels the lease, as its VMs are not bora's; a marking that
// failed leaves the VMs unmarked, and the next poll takes them again.
func (d *Daemon) callDone(t *tx, c sourceCall, err error) {
	delete(d.calls.pending, c.Lease)
	poll := d.calls.polls.Load()
	for _, vm := range c.VMs {
		d.calls.settled[vm] = poll
	}
	t.mutated = true
	log := d.log.WithField("component", "intake").WithField("lease_id", c.Lease).WithField("vms", c.VMs)
	switch {
	case err == nil && c.Reject != "":
		log.WithField("reason", c.Reject).Info("VMs marked rejected")
	case err == nil:
		log.Info("lease taken from the driver: VMs adopted")
	case c.Reject != "":
		log.WithError(err).Warn("marking rejected VMs failed: the next poll takes them again")
	default:
		d.adoptFailed(t, c, err)
	}
}

// adoptFailed cancels lease c.Lease, whose VMs could not be adopted. What
// the cancellation asks for other leases is enacted; nothing is done to
// the lease's own VMs (they were never bora's: the executor dropped the
// operations queued behind the adoption). Its VMs are taken again at the
// next poll.
func (d *Daemon) adoptFailed(t *tx, c sourceCall, err error) {
	log := d.log.WithField("component", "intake").WithField("lease_id", c.Lease).WithField("vms", c.VMs)
	msg := fmt.Sprintf("adopting the source's VMs %v failed: %v", c.VMs, err)
	d.errs[c.Lease] = append(d.errs[c.Lease], fmt.Sprintf("%s %s", t.now.Format(time.RFC3339), msg))
	l := d.sched.Lease(c.Lease)
	if l == nil || l.State.Terminal() {
		log.WithError(err).Warn("adopting the VMs of a lease that is over failed")
		return
	}
	log.WithError(err).Error("adopting the lease's VMs failed: cancelling the lease")
	acts, cerr := d.sched.Cancel(t.now, c.Lease)
	if cerr != nil {
		log.WithError(cerr).Error("cancelling a lease whose VMs could not be adopted")
		return
	}
	for _, a := range acts {
		if a.Lease != c.Lease {
			t.acts = append(t.acts, a)
		}
	}
}
