package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers"
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

// intake polls the lease source every interval and submits what it
// finds.
func (d *Daemon) intake(ctx context.Context, every time.Duration) {
	if d.src == nil || every <= 0 {
		return
	}
	log := d.log.WithField("component", "intake")
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		poll := d.calls.polls.Add(1) // sourcecalls.go: before the listing
		pending, err := d.src.Pending(ctx)
		if err != nil {
			log.WithError(err).Warn("polling for new leases")
		}
		for _, p := range pending {
			d.take(ctx, p, poll)
		}
		d.refreshHosts(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// leaseRequest is a pending OpenNebula lease as the API's request.
func leaseRequest(r opennebula.Request) api.LeaseRequest {
	return api.LeaseRequest{Name: r.Name, VMs: r.VMs, CPU: r.CPU, Memory: r.Memory, Start: r.Start,
		Duration: r.Duration, Deadline: r.Deadline, Class: r.Class, Origin: r.Origin}
}

// take submits one pending lease, found by intake poll number poll,
// through the submission path (submit.go). The pass records what to tell
// the source, adopt the VMs into the lease or mark them with the reason
// it was rejected; the call is made after the commit (sourcecalls.go).
// VMs the loop finds taken already (their call pending, or made since the
// poll began) are left alone. A request that does not validate makes no
// lease: its VMs are marked here, by the intake, outside the loop.
func (d *Daemon) take(ctx context.Context, p opennebula.PendingLease, poll int64) {
	log := d.log.WithField("component", "intake").WithField("key", p.Key)
	reject := func(reason string) {
		if err := d.src.Reject(ctx, p.VMIDs, reason); err != nil {
			log.WithError(err).Warn("marking rejected VMs")
		}
	}
	if p.Err != nil {
		log.WithError(p.Err).Warn("VMs not taken")
		reject(p.Err.Error())
		return
	}
	caller := api.Caller{User: p.User, UID: -1, External: p.Request.Origin == "external"}
	form := leaseRequest(p.Request)
	v, err := d.call(ctx, func(t *tx) (any, error) {
		if d.claimed(p.VMIDs, poll) {
			return nil, nil
		}
		l, err := d.submit(t, submission{form: &form, caller: caller, via: "intake"})
		if err != nil {
			return err, nil // no lease: the intake marks the VMs
		}
		c := sourceCall{Lease: l.ID, VMs: p.VMIDs}
		if l.State == scheduler.Rejected {
			c.Reject = fmt.Sprintf("%s: %s", l.Reason, l.Detail)
		}
		d.tell(t, c)
		return nil, nil
	})
	if err != nil {
		log.WithError(err).Warn("lease not taken")
		return
	}
	if invalid, ok := v.(error); ok {
		log.WithError(invalid).Warn("request refused")
		reject(invalid.Error())
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
// table, hosts that stopped (or started) answering are closed (or
// opened) to new placements, and every host's capacity follows what the
// driver reports (see refreshHost).
func (d *Daemon) refreshHosts(ctx context.Context) {
	found, err := d.drv.Hosts(ctx)
	if err != nil {
		d.log.WithError(err).Warn("refreshing hosts")
		return
	}
	d.post(func(t *tx) {
		for _, f := range found {
			d.refreshHost(t, f)
		}
		t.mutated = true
	})
}

// refreshHost brings one host the driver reports into the plan. A
// capacity of 0 (OpenNebula's, before a host's first monitoring and
// while it is OFFLINE) is not a size: such a host takes nothing new, and
// keeps the capacity it had. Any other capacity that differs from the
// plan's is a change the plan follows (scheduler.SetHostCapacity).
func (d *Daemon) refreshHost(t *tx, f drivers.Host) {
	log := d.log.WithField("component", "intake").WithField("host", f.Name)
	cpu, memory := d.capacityOf(f)
	measured := cpu > 0 && memory > 0
	up := f.Up && measured
	id, ok := d.names[f.Name]
	if !ok {
		nid, err := d.table.AddHost(f.Name, slottable.Resources{cpu, memory})
		if err != nil {
			log.WithError(err).Error("adding a new host")
			return
		}
		d.names[f.Name] = nid
		d.hosts = append(d.hosts, &host{Name: f.Name, CPU: cpu, Memory: memory, Enabled: true, Up: up, Power: "on"})
		d.power.addHost(t.now, d.hosts[nid]) // energy.go
		log.WithField("up", up).WithField("measured", measured).Info("new host")
		if up {
			t.acts = append(t.acts, d.sched.Advance(t.now)...)
		} else {
			_ = d.setEnabled(t, nid) // hostpower.go: closed until it answers with a size
		}
		return
	}
	h := d.hosts[id]
	if measured && (h.CPU != cpu || h.Memory != memory) {
		d.resizeHost(t, id, cpu, memory)
	}
	if h.Up == up && !h.Retired {
		return
	}
	h.Up, h.Retired = up, false
	_ = d.setEnabled(t, id) // hostpower.go
	log.WithField("up", up).Info("host changed")
}

// resizeHost changes host id's capacity in the plan. When leases running
// there hold more than the new size, the scheduler keeps what they hold
// (and closes the host); the host record keeps that too, so the next poll
// tries again until they end.
func (d *Daemon) resizeHost(t *tx, id slottable.HostID, cpu, memory int64) {
	h := d.hosts[id]
	log := d.log.WithField("component", "intake").WithField("host", h.Name)
	acts, err := d.sched.SetHostCapacity(t.now, id, slottable.Resources{cpu, memory})
	t.acts = append(t.acts, acts...)
	if c := d.sched.HostCapacity(id); c != nil {
		h.CPU, h.Memory = c[slottable.CPU], c[slottable.Memory]
	}
	switch {
	case errors.Is(err, scheduler.ErrHostOvercommitted):
		log.WithError(err).Warn("host capacity shrank under running leases")
	case err != nil:
		log.WithError(err).Error("changing a host's capacity")
	default:
		log.WithField("cpu", cpu).WithField("memory_mb", memory).Info("host capacity changed")
		_ = d.setEnabled(t, id) // hostpower.go: opens it if it was closed while overcommitted
	}
}

// capacityOf is the capacity a driver's host is planned with: the
// driver's, unless the configuration gives the host's cores or memory.
func (d *Daemon) capacityOf(f drivers.Host) (cpu, memory int64) {
	cpu, memory = f.CPU, f.Memory
	for _, h := range d.cfg.Hosts {
		if h.Name != f.Name {
			continue
		}
		if h.CPU > 0 {
			cpu = int64(h.CPU * 100)
		}
		if h.Memory > 0 {
			memory = h.Memory
		}
	}
	return cpu, memory
}
