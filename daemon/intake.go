package daemon

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers/opennebula"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// leaseSource is a driver whose users create VMs that bora makes leases
// of (the OpenNebula driver: VMs on HOLD, grouped by BORA_LEASE).
type leaseSource interface {
	Pending(ctx context.Context) ([]opennebula.PendingLease, error)
	Adopt(ctx context.Context, lease uint64, vmIDs []int) error
	Reject(ctx context.Context, vmIDs []int, reason string) error
}

// vmIDer is a driver with its own ids for a lease's VMs (shown by
// `bora lease show`).
type vmIDer interface {
	VMIDs(lease uint64) []int
}

// intake polls a lease source every interval and submits what it finds.
func (d *Daemon) intake(ctx context.Context, every time.Duration) {
	src, ok := d.drv.(leaseSource)
	if !ok || every <= 0 {
		return
	}
	log := d.log.WithField("component", "intake")
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		pending, err := src.Pending(ctx)
		if err != nil {
			log.WithError(err).Warn("polling for new leases")
		}
		for _, p := range pending {
			d.take(ctx, src, p)
		}
		d.refreshHosts(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// take submits one pending lease. The VMs are adopted (or rejected) in
// the loop, before the pass that submitted them enacts anything.
func (d *Daemon) take(ctx context.Context, src leaseSource, p opennebula.PendingLease) {
	log := d.log.WithField("component", "intake").WithField("key", p.Key)
	if p.Err != nil {
		log.WithError(p.Err).Warn("VMs not taken")
		if err := src.Reject(ctx, p.VMIDs, p.Err.Error()); err != nil {
			log.WithError(err).Warn("marking rejected VMs")
		}
		return
	}
	caller := api.Caller{User: p.User, UID: -1, External: p.Request.Origin == "external"}
	_, err := d.call(ctx, func(t *tx) (any, error) {
		req, err := toRequest(p.Request, t.now, caller)
		if err != nil {
			return nil, src.Reject(ctx, p.VMIDs, err.Error())
		}
		l, acts := d.sched.Submit(t.now, req)
		t.touched = append(t.touched, l.ID)
		t.mutated = true
		if l.State == scheduler.Rejected {
			return nil, src.Reject(ctx, p.VMIDs, fmt.Sprintf("%s: %s", l.Reason, l.Detail))
		}
		if err := src.Adopt(ctx, l.ID, p.VMIDs); err != nil {
			if _, cerr := d.sched.Cancel(t.now, l.ID); cerr != nil {
				log.WithError(cerr).Error("cancelling a lease whose VMs could not be adopted")
			}
			return nil, fmt.Errorf("adopting VMs %v: %w", p.VMIDs, err)
		}
		t.acts = append(t.acts, acts...)
		log.WithField("lease_id", l.ID).WithField("vms", p.VMIDs).Info("lease taken from the driver")
		return nil, nil
	})
	if err != nil {
		log.WithError(err).Warn("lease not taken")
	}
}

// driverIDs are the driver's own ids of a lease's VMs, when it has them.
func (d *Daemon) driverIDs(id uint64) []string {
	v, ok := d.drv.(vmIDer)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range v.VMIDs(id) {
		out = append(out, strconv.Itoa(n))
	}
	return out
}

// refreshHosts asks the driver for its hosts again: new ones join the slot
// table, and hosts that stopped (or started) answering are closed (or
// opened) to new placements.
func (d *Daemon) refreshHosts(ctx context.Context) {
	found, err := d.drv.Hosts(ctx)
	if err != nil {
		d.log.WithError(err).Warn("refreshing hosts")
		return
	}
	d.post(func(t *tx) {
		for _, f := range found {
			id, ok := d.names[f.Name]
			if !ok {
				nid, err := d.table.AddHost(f.Name, slottable.Resources{f.CPU, f.Memory})
				if err != nil {
					d.log.WithError(err).WithField("host", f.Name).Error("adding a new host")
					continue
				}
				d.names[f.Name] = nid
				d.hosts = append(d.hosts, &host{Name: f.Name, CPU: f.CPU, Memory: f.Memory, Enabled: true, Up: f.Up, Power: "on"})
				d.power.addHost(t.now, d.hosts[nid]) // energy.go
				d.log.WithField("host", f.Name).Info("new host")
				id = nid
				if f.Up {
					t.acts = append(t.acts, d.sched.Advance(t.now)...)
					continue
				}
			}
			h := d.hosts[id]
			if h.Up == f.Up && !h.Retired {
				continue
			}
			h.Up, h.Retired = f.Up, false
			_ = d.setEnabled(t, id) // energy.go
			d.log.WithField("host", f.Name).WithField("up", f.Up).Info("host changed")
		}
		t.mutated = true
	})
}
