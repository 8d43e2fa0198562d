package daemon

import (
	"context"
	"fmt"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// startup reconciles the restored state with what the driver reports and
// re-enacts the operation every lease was in the middle of.
func (d *Daemon) startup(ctx context.Context) error {
	found, err := d.drv.List(ctx)
	if err != nil {
		d.log.WithError(err).Warn("the driver could not list its VMs: re-enacting without reconciliation")
	}
	byLease := map[scheduler.LeaseID][]drivers.VMStatus{}
	for _, v := range found {
		byLease[v.Lease] = append(byLease[v.Lease], v)
	}
	now := d.clk.Now()
	acts := d.restoreActs
	for id, vms := range byLease {
		l, err := d.lookup(id) // finished.go: live or finished
		if err != nil {
			return err
		}
		switch {
		case l == nil:
			for _, v := range vms {
				d.unknown = append(d.unknown, v)
				d.log.WithField("vm", fmt.Sprintf("bora-%d-%d", v.Lease, v.Index)).WithField("host", v.Host).
					WithField("state", string(v.State)).Warn("the driver runs a VM bora does not know: left alone")
			}
		case l.State.Terminal():
			// Left over from a lease that is over (its clean-up was lost).
			acts = append(acts, scheduler.Action{At: now, Op: scheduler.ActDone, Lease: id, Hosts: d.hostIDs(vms)})
		}
	}
	for _, l := range d.sched.Leases() {
		if l.State.Terminal() {
			continue
		}
		acts = append(acts, d.reenact(l, byLease[l.ID])...)
	}
	d.exec.enact(acts, callOps(d.pendingCalls())...) // sourcecalls.go: calls a stop cut short, first
	return d.commitNow()
}

// reenact returns what to do for a live lease after a restart: the
// operation of the phase it is in (idempotent, so doing it again is safe),
// or, in its run phase, bringing back VMs that should run but do not.
func (d *Daemon) reenact(l *scheduler.Lease, vms []drivers.VMStatus) []scheduler.Action {
	p, ok := l.Current()
	if !ok {
		return nil
	}
	t := d.clk.Now()
	if p.Kind == "vm" {
		return d.reviveRun(l, p, vms)
	}
	k, ok := phaseOp(p.Kind)
	if !ok {
		return nil
	}
	act := scheduler.Action{At: t, Op: k, Lease: l.ID, Hosts: p.Hosts, From: l.Hosts}
	return []scheduler.Action{act}
}

// reviveRun checks the VMs of a running lease: a VM that should run but
// does not is resumed (if its image is saved) or started again.
func (d *Daemon) reviveRun(l *scheduler.Lease, p scheduler.PlanPhase, vms []drivers.VMStatus) []scheduler.Action {
	have := map[int]drivers.State{}
	for _, v := range vms {
		have[v.Index] = v.State
	}
	missing, saved := 0, 0
	for i := range p.Hosts {
		switch have[i] {
		case drivers.Running, drivers.Paused:
		case drivers.Saved:
			saved++
		default:
			missing++
		}
	}
	if missing == 0 && saved == 0 {
		return nil
	}
	log := d.log.WithField("lease_id", l.ID)
	t := d.clk.Now()
	var acts []scheduler.Action
	if saved > 0 {
		log.WithField("vms", saved).Warn("VMs that should run are saved: resuming them")
		acts = append(acts, scheduler.Action{At: t, Op: scheduler.ActResume, Lease: l.ID, Hosts: p.Hosts})
	}
	if missing > 0 {
		log.WithField("vms", missing).Warn("VMs that should run are gone: starting them again")
		acts = append(acts, scheduler.Action{At: t, Op: scheduler.ActStart, Lease: l.ID, Hosts: p.Hosts})
	}
	d.errs[l.ID] = append(d.errs[l.ID], fmt.Sprintf("%s restart: %d VMs resumed, %d started again",
		t.Format("2006-01-02T15:04:05Z07:00"), saved, missing))
	return acts
}

func (d *Daemon) hostIDs(vms []drivers.VMStatus) []slottable.HostID {
	n := 0
	for _, v := range vms {
		n = max(n, v.Index+1)
	}
	out := make([]slottable.HostID, n)
	for _, v := range vms {
		if id, ok := d.names[v.Host]; ok {
			out[v.Index] = id
		}
	}
	return out
}

// pumpDriverEvents turns what the driver notices into loop events.
func (d *Daemon) pumpDriverEvents(ctx context.Context) {
	ch := d.drv.Events()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			d.post(func(t *tx) { d.driverEvent(t, ev) })
		}
	}
}

func (d *Daemon) driverEvent(t *tx, ev drivers.Event) {
	log := d.log.WithField("event", string(ev.Kind)).WithField("host", ev.Host)
	switch ev.Kind {
	case drivers.VMExited:
		l := d.sched.Lease(ev.Lease)
		if l == nil || l.State != scheduler.Running {
			return
		}
		log.WithField("lease_id", ev.Lease).Info("lease's VMs ended by themselves")
		t.acts = append(t.acts, d.sched.Finished(t.now, ev.Lease)...)
	case drivers.VMCrashed:
		l := d.sched.Lease(ev.Lease)
		if l == nil || l.State.Terminal() {
			return
		}
		msg := fmt.Sprintf("VM %d died on %s: %s", ev.Index, ev.Host, ev.Detail)
		log.WithField("lease_id", ev.Lease).Error(msg)
		d.errs[ev.Lease] = append(d.errs[ev.Lease], msg)
		if acts, err := d.sched.Fail(t.now, ev.Lease, msg); err == nil {
			t.acts = append(t.acts, acts...)
		}
	case drivers.HostDown, drivers.HostUp:
		id, ok := d.names[ev.Host]
		if !ok {
			return
		}
		h := d.hosts[id]
		h.Up = ev.Kind == drivers.HostUp
		log.Warn("host state changed")
		acts, _ := d.sched.SetHostEnabled(t.now, id, h.Up && h.Enabled && !h.Retired)
		t.acts = append(t.acts, acts...)
	}
	t.mutated = true
}

// unknownVMs is what reconciliation found that bora does not know (read
// in the loop).
func (d *Daemon) unknownVMs() []drivers.VMStatus {
	v, _ := d.call(context.Background(), func(*tx) (any, error) {
		return append([]drivers.VMStatus(nil), d.unknown...), nil
	})
	out, _ := v.([]drivers.VMStatus)
	return out
}
