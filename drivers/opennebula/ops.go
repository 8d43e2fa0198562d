package opennebula

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Every operation reads each VM's state first and makes only the calls
// still needed, so calling it again after a crash, a timeout or a lost
// answer does the right thing; then it follows the VMs (one.vm.info,
// backing off from PollInterval/10 up to PollInterval) until OpenNebula
// reports them done or failed, within OpTimeout. A failure carries
// OpenNebula's text: the error answer of the call, or the VM's
// USER_TEMPLATE/ERROR when it went to a …_FAILURE state.

// run is the shape of the operations on VMs that must exist: find each
// VM (dest: the host each should end on; nil: wherever it is), step them
// until done or OpTimeout, and record the outcome with exp. step sees
// only a VM that still exists and that no call of ours made fail; a VM
// gone or failed is that VM's error.
func (d *Driver) run(ctx context.Context, op string, vms []drivers.VM, dest []string, exp expectation, step stepFunc) error {
	ts, err := d.targets(ctx, vms, dest, false)
	errs := d.converge(ctx, op, ts, d.cfg.OpTimeout, func(t *target, v *oneVM) decision {
		if v == nil {
			return fail(gone())
		}
		if err := failedAfterCall(t, v); err != nil {
			return fail(err)
		}
		return step(t, v)
	})
	d.settle(ts, errs, exp)
	return errors.Join(append(errs, err)...)
}

// vmHosts is the host each VM is to run on.
func vmHosts(vms []drivers.VM) []string {
	hosts := make([]string, len(vms))
	for i, vm := range vms {
		hosts[i] = vm.Host
	}
	return hosts
}

func gone() error { return fmt.Errorf("%w: the VM no longer exists in OpenNebula", ErrWrongState) }

func wrongState(v *oneVM, what string) error {
	return fmt.Errorf("%w: VM is %s, cannot %s", ErrWrongState, v.stateString(), what)
}

// Start deploys each VM on its Host: one.vm.deploy(id, host, false,
// Datastore) for a VM on HOLD or PENDING, then waits for ACTIVE/RUNNING
// (PROLOG -> BOOT -> RUNNING). A VM already running (or booting) there is
// left alone; one running on another host is ErrWrongState.
func (d *Driver) Start(ctx context.Context, vms []drivers.VM) error {
	return d.run(ctx, "start", vms, vmHosts(vms), expectRunning, func(t *target, v *oneVM) decision {
		switch v.State {
		case oca.Hold, oca.Pending, oca.Stopped, oca.Undeployed:
			return decision{call: "deploy", do: func(ctx context.Context) error {
				return d.one.deploy(ctx, t.id, t.hid, d.cfg.Datastore)
			}}
		case oca.Active:
			if v.HostID != t.hid {
				return fail(fmt.Errorf("%w: VM is %s on host %s", ErrWrongState, v.stateString(), v.Host))
			}
			switch v.LCM {
			case oca.Running:
				return done()
			case oca.LcmInit, oca.Prolog, oca.Boot:
				return wait()
			}
		}
		return fail(wrongState(v, "deploy it"))
	})
}

// Suspend saves each VM (one.vm.action "suspend": RUNNING ->
// SAVE_SUSPEND -> SUSPENDED); OpenNebula writes the memory image to the
// system datastore. A VM already SUSPENDED is left alone.
func (d *Driver) Suspend(ctx context.Context, vms []drivers.VM) error {
	return d.run(ctx, "suspend", vms, nil, expectSaved, func(t *target, v *oneVM) decision {
		switch {
		case v.State == oca.Suspended:
			return done()
		case v.State == oca.Active && v.LCM == oca.SaveSuspend:
			return wait()
		case v.State == oca.Active && v.LCM == oca.Running:
			return decision{call: "suspend", do: func(ctx context.Context) error {
				return d.one.action(ctx, t.id, "suspend")
			}}
		}
		return fail(wrongState(v, "suspend it"))
	})
}

// Migrate moves the saved VMs to vms[i].Host: OpenNebula allows
// one.vm.migrate of a SUSPENDED VM (cold: SUSPENDED ->
// PROLOG_MIGRATE_SUSPEND -> SUSPENDED on the new host), which copies the
// image when the system datastore is not shared and only re-links it
// when it is. Doing it here puts the copy in the phase bora reserved for
// it; Resume still migrates a VM that is not where it must resume. A VM
// already saved on its destination (from[i] == vms[i].Host) needs no
// call. A VM not SUSPENDED is drivers.ErrNotSaved.
func (d *Driver) Migrate(ctx context.Context, vms []drivers.VM, from []string) error {
	if len(from) != len(vms) {
		return fmt.Errorf("opennebula: migrate: %d VMs but %d source hosts", len(vms), len(from))
	}
	return d.run(ctx, "migrate", vms, vmHosts(vms), expectSaved, func(t *target, v *oneVM) decision {
		return d.moveSaved(t, v, func() decision { return done() })
	})
}

// moveSaved brings a saved VM to t's host, then decides with there.
func (d *Driver) moveSaved(t *target, v *oneVM, there func() decision) decision {
	switch {
	case v.State == oca.Active && (v.LCM == oca.PrologMigrateSuspend || v.LCM == oca.LcmInit):
		return wait()
	case v.State == oca.Suspended && v.HostID != t.hid:
		return decision{call: "migrate", do: func(ctx context.Context) error {
			return d.one.migrate(ctx, t.id, t.hid, false, d.cfg.Datastore)
		}}
	case v.State == oca.Suspended:
		// On its host. oned opens the new placement when it accepts the
		// migrate call, before the VM leaves SUSPENDED for
		// PROLOG_MIGRATE_SUSPEND: the copy is done once the record's
		// prolog has ended (PETIME), however short it was between polls.
		if t.called("migrate") && v.Placed.PETime == 0 {
			return wait()
		}
		return there()
	}
	return fail(fmt.Errorf("%w: VM is %s", drivers.ErrNotSaved, v.stateString()))
}

// Resume restores each saved VM on its Host: if OpenNebula has it saved
// on another host, first one.vm.migrate (cold) to it, since OpenNebula
// resumes a VM where it was suspended; then one.vm.action "resume"
// (SUSPENDED -> BOOT_SUSPENDED -> RUNNING). A VM already running there is
// left alone; one running elsewhere is ErrWrongState; one that was not
// saved is drivers.ErrNotSaved.
func (d *Driver) Resume(ctx context.Context, vms []drivers.VM) error {
	return d.run(ctx, "resume", vms, vmHosts(vms), expectRunning, func(t *target, v *oneVM) decision {
		switch {
		case v.State == oca.Active && v.LCM == oca.Running:
			if v.HostID != t.hid {
				return fail(fmt.Errorf("%w: VM is running on host %s", ErrWrongState, v.Host))
			}
			return done()
		case v.State == oca.Active && v.LCM == oca.BootSuspended:
			return wait()
		}
		return d.moveSaved(t, v, func() decision {
			return decision{call: "resume", do: func(ctx context.Context) error {
				return d.one.action(ctx, t.id, "resume")
			}}
		})
	})
}

// LiveMigrate moves running VMs to the hosts in to with a live
// one.vm.migrate (RUNNING -> MIGRATE -> RUNNING on the new host). With
// Migration "cold" it returns drivers.ErrUnsupported: the daemon then
// suspends, migrates and resumes. A VM already running on its
// destination is left alone; one the migration left on its source (with
// an ERROR) is ErrOperationFailed.
func (d *Driver) LiveMigrate(ctx context.Context, vms []drivers.VM, to []string) error {
	if len(to) != len(vms) {
		return fmt.Errorf("opennebula: live migrate: %d VMs but %d hosts", len(vms), len(to))
	}
	if d.cfg.Migration == MigrationCold {
		return fmt.Errorf("opennebula: live migration is off (migration: cold): %w", drivers.ErrUnsupported)
	}
	return d.run(ctx, "live-migrate", vms, to, expectRunning, func(t *target, v *oneVM) decision {
		if v.State != oca.Active {
			return fail(wrongState(v, "migrate it"))
		}
		switch v.LCM {
		case oca.Running:
			if v.HostID != t.hid {
				if t.called("migrate") {
					return fail(fmt.Errorf("%w: VM is back on host %s", ErrOperationFailed, v.Host))
				}
				return decision{call: "migrate", do: func(ctx context.Context) error {
					return d.one.migrate(ctx, t.id, t.hid, true, d.cfg.Datastore)
				}}
			}
			// oned opens the new placement when it accepts the call,
			// while the VM still runs on the source: the migration is
			// done once the VM runs on the new host (RSTIME) and has
			// left the old one (its record's ETIME).
			if t.called("migrate") && (v.Placed.RSTime == 0 || !v.Left) {
				return wait()
			}
			return done()
		case oca.LcmInit, oca.Migrate, oca.SaveMigrate, oca.PrologMigrate, oca.BootMigrate:
			return wait()
		}
		return fail(wrongState(v, "migrate it"))
	})
}

// terminateStep ends a VM with action ("terminate" or "terminate-hard"),
// waiting for it to leave a working state first; done at DONE or when
// oned no longer knows it.
func (d *Driver) terminateStep(action string) stepFunc {
	hard := action == "terminate-hard"
	return func(t *target, v *oneVM) decision {
		if v == nil || v.State == oca.Done {
			return done()
		}
		call := decision{call: action, do: func(ctx context.Context) error {
			return d.one.action(ctx, t.id, action)
		}}
		switch v.State {
		case oca.Init, oca.Pending, oca.Hold, oca.Cloning, oca.CloningFailure,
			oca.Suspended, oca.Poweroff, oca.Stopped, oca.Undeployed:
			return call
		case oca.Active:
		default:
			return fail(wrongState(v, action))
		}
		switch {
		case v.LCM == oca.Running || v.LCM == oca.Unknown:
			return call
		case v.LCM.IsFailure():
			if t.called(action) {
				// It failed on the way out (EPILOG_FAILURE): say so.
				return fail(fmt.Errorf("%w: VM went to %s: %s", ErrOperationFailed, v.stateString(), v.Error))
			}
			return call
		case v.LCM == oca.Shutdown && hard:
			// A soft terminate hangs; terminate-hard overrides it.
			return call
		}
		// Working (PROLOG, BOOT, SAVE_*, MIGRATE, SHUTDOWN, EPILOG, ...):
		// oned refuses to terminate now, so wait.
		return wait()
	}
}

// Stop destroys the VMs at once: one.vm.action "terminate-hard" (RUNNING
// -> SHUTDOWN -> EPILOG -> DONE; a saved VM goes EPILOG -> DONE, a VM on
// HOLD straight to DONE), waiting for a VM in the middle of an operation
// to finish it first. A VM that is DONE, unknown to oned or never adopted
// is not an error.
func (d *Driver) Stop(ctx context.Context, vms []drivers.VM) error {
	ts, err := d.targets(ctx, vms, nil, true)
	errs := d.converge(ctx, "stop", ts, d.cfg.OpTimeout, d.terminateStep("terminate-hard"))
	d.settle(ts, errs, expectGone)
	return errors.Join(append(errs, err)...)
}

// Shutdown asks the guests to shut down (one.vm.action "terminate", an
// ACPI shutdown), waits up to grace for them to reach DONE, then
// destroys what is left with "terminate-hard".
func (d *Driver) Shutdown(ctx context.Context, vms []drivers.VM, grace time.Duration) error {
	ts, err := d.targets(ctx, vms, nil, true)
	if len(ts) == 0 {
		return err
	}
	var left []*target
	if grace > 0 {
		errs := d.converge(ctx, "shutdown", ts, grace, d.terminateStep("terminate"))
		for i, e := range errs {
			if e != nil {
				d.opLog("shutdown", ts[i]).WithError(e).Info("guest did not shut down in time, destroying it")
				left = append(left, &target{vm: ts[i].vm, id: ts[i].id, hid: -1})
			}
		}
		d.settle(ts, errs, expectGone)
	} else {
		left = ts
	}
	if ctx.Err() != nil {
		return errors.Join(err, ctx.Err())
	}
	errs := d.converge(ctx, "stop", left, d.cfg.OpTimeout, d.terminateStep("terminate-hard"))
	d.settle(left, errs, expectGone)
	return errors.Join(append(errs, err)...)
}

// Cleanup makes sure nothing is left of the VMs: OpenNebula removes a
// VM's files when it reaches DONE, so this only terminates (hard) a VM
// that is still there. Idempotent.
func (d *Driver) Cleanup(ctx context.Context, vms []drivers.VM) error {
	ts, err := d.targets(ctx, vms, nil, true)
	errs := d.converge(ctx, "cleanup", ts, d.cfg.OpTimeout, d.terminateStep("terminate-hard"))
	d.settle(ts, errs, expectGone)
	return errors.Join(append(errs, err)...)
}
