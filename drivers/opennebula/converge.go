package opennebula

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// target is one VM an operation works on.
type target struct {
	vm   drivers.VM
	id   int    // OpenNebula VM id
	hid  int    // destination host id, -1 when the operation has none
	host string // destination host name

	seen   bool   // observed at least once
	before string // USER_TEMPLATE/ERROR when first observed
	issued map[string]bool
	last   string // the last state observed
}

// decision is what an operation's step wants for one VM now.
type decision struct {
	done bool
	call string                          // the call to make (once): "deploy", "suspend", ...
	do   func(ctx context.Context) error // makes it
	err  error                           // the VM cannot get there
}

// stepFunc decides from the VM's current document (nil: oned says it
// does not exist).
type stepFunc func(t *target, v *oneVM) decision

func wait() decision          { return decision{} }
func done() decision          { return decision{done: true} }
func fail(err error) decision { return decision{err: err} }

func (t *target) called(call string) bool { return t.issued[call] }

// failedAfterCall reports, once a call was made, OpenNebula telling that
// the work failed: a …_FAILURE LCM state or a new ERROR.
func failedAfterCall(t *target, v *oneVM) error {
	if v.State == oca.Active && v.LCM.IsFailure() {
		return fmt.Errorf("%w: VM went to %s: %s", ErrOperationFailed, v.stateString(), v.Error)
	}
	if len(t.issued) > 0 && v.Error != "" && v.Error != t.before {
		return fmt.Errorf("%w: VM is %s: %s", ErrOperationFailed, v.stateString(), v.Error)
	}
	return nil
}

// pollMin is the first wait between two looks at the VMs of an
// operation; the wait doubles up to PollInterval.
func (d *Driver) pollMin() time.Duration {
	m := d.cfg.PollInterval / 10
	if m < 10*time.Millisecond {
		m = 10 * time.Millisecond
	}
	if m > time.Second {
		m = time.Second
	}
	if m > d.cfg.PollInterval {
		m = d.cfg.PollInterval
	}
	return m
}

// converge drives every target to where step wants it: each round it
// reads each VM (one.vm.info), makes the call step asks for (once per
// call name), and stops watching the VMs that are done or failed. It is
// bounded by ctx and by timeout. It returns one error per target (nil:
// done).
func (d *Driver) converge(ctx context.Context, op string, ts []*target, timeout time.Duration, step stepFunc) []error {
	errs := make([]error, len(ts))
	if len(ts) == 0 {
		return errs
	}
	octx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d.setBusy(ts, 1)
	defer d.setBusy(ts, -1)

	pending := make([]int, len(ts))
	for i := range ts {
		pending[i] = i
	}
	pause := d.pollMin()
	for {
		var next []int
		calledNow := false
		for _, i := range pending {
			more, called, err := d.visit(octx, op, ts[i], step)
			calledNow = calledNow || called
			switch {
			case err != nil:
				errs[i] = err
			case more:
				next = append(next, i)
			}
		}
		pending = next
		if len(pending) == 0 {
			return errs
		}
		if calledNow {
			pause = d.pollMin()
		}
		select {
		case <-octx.Done():
			for _, i := range pending {
				cause := error(ErrTimeout)
				if ctx.Err() != nil {
					cause = ctx.Err()
				}
				errs[i] = d.opErr(op, ts[i], fmt.Errorf("%w: still %s", cause, ts[i].last))
			}
			return errs
		case <-time.After(pause):
		}
		if pause *= 2; pause > d.cfg.PollInterval {
			pause = d.cfg.PollInterval
		}
	}
}

// visit reads one target's VM and acts on step's decision: more is true
// while the VM still has to be watched, called when a call was made.
func (d *Driver) visit(ctx context.Context, op string, t *target, step stepFunc) (more, called bool, err error) {
	log := d.opLog(op, t)
	v, err := d.one.vmInfo(ctx, t.id)
	switch {
	case err != nil && ctx.Err() != nil:
		return true, false, nil // the deadline decides
	case isNoExists(err):
		v = nil
	case err != nil:
		return false, false, d.opErr(op, t, err)
	default:
		if !t.seen {
			t.seen, t.before = true, v.Error
		}
		st := v.stateString()
		if st != t.last {
			log.WithField("state", st).Debug("vm state")
			t.last = st
		}
	}
	dec := step(t, v)
	switch {
	case dec.err != nil:
		err := d.opErr(op, t, dec.err)
		log.WithError(err).Warn("operation failed")
		return false, false, err
	case dec.done:
		log.Debug("vm done")
		return false, false, nil
	case dec.do == nil || t.issued[dec.call]:
		return true, false, nil
	}
	if t.issued == nil {
		t.issued = map[string]bool{}
	}
	t.issued[dec.call] = true
	log.WithField("call", dec.call).Info("calling opennebula")
	if err := dec.do(ctx); err != nil {
		err = d.opErr(op, t, err)
		log.WithError(err).Warn("opennebula refused the call")
		return false, true, err
	}
	return true, true, nil
}

func (d *Driver) opLog(op string, t *target) *logrus.Entry {
	f := logrus.Fields{"op": op, "lease_id": t.vm.Lease, "vm_index": t.vm.Index, "one_vm": t.id}
	if t.host != "" {
		f["host"] = t.host
	}
	return d.log.WithFields(f)
}

func (d *Driver) opErr(op string, t *target, err error) error {
	where := ""
	if t.host != "" {
		where = " on host " + t.host
	}
	return fmt.Errorf("opennebula: %s of lease %d vm %d (opennebula vm %d)%s: %w",
		op, t.vm.Lease, t.vm.Index, t.id, where, err)
}

// targets resolves lease VMs to OpenNebula VMs and, when dest is not nil,
// their destination hosts. With lenient, VMs never adopted are skipped
// (for Stop, Shutdown, Cleanup: a VM that is not there is not an error).
func (d *Driver) targets(ctx context.Context, vms []drivers.VM, dest []string, lenient bool) ([]*target, error) {
	if err := d.errClosedIf(); err != nil {
		return nil, err
	}
	if dest != nil && len(dest) != len(vms) {
		return nil, fmt.Errorf("opennebula: %d VMs but %d hosts", len(vms), len(dest))
	}
	var ts []*target
	var errs []error
	for i, vm := range vms {
		id, err := d.vmID(vm)
		if err != nil {
			if !lenient {
				errs = append(errs, fmt.Errorf("opennebula: %w", err))
			}
			continue
		}
		t := &target{vm: vm, id: id, hid: -1}
		if dest != nil {
			t.host = dest[i]
			if t.hid, err = d.hostID(ctx, dest[i]); err != nil {
				errs = append(errs, fmt.Errorf("opennebula: lease %d vm %d: %w", vm.Lease, vm.Index, err))
				continue
			}
		}
		ts = append(ts, t)
	}
	return ts, errors.Join(errs...)
}

// settle records what each VM is expected to do after an operation: exp
// for the ones that succeeded, nothing for the others.
func (d *Driver) settle(ts []*target, errs []error, exp expectation) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, t := range ts {
		w := d.watchOf(t.id)
		w.reported = false
		if errs[i] == nil {
			w.expect = exp
		} else {
			w.expect = expectNothing
		}
	}
}
