package opennebula

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// PendingLease is a lease request made of OpenNebula VMs waiting for
// placement. Err is set (and Request empty) when the VMs' BORA_LEASE does
// not parse or disagrees within the group: such VMs are reported, not to
// be adopted, until their owner fixes the attribute.
type PendingLease struct {
	// Key identifies the request across polls: "<uid>/<BORA_LEASE ID>"
	// for a group, "vm/<id>" for a VM on its own.
	Key     string
	User    string // the VMs' owner (UNAME)
	VMIDs   []int  // ascending; VMIDs[i] becomes the lease's VM i
	Request Request
	Err     error
}

// Request is what a pending lease asks for, in the form and with the
// meaning of the API's lease request (api.LeaseRequest, which the daemon
// makes of it): cores and MB per VM, Start "now", "best-effort", an
// RFC 3339 time or "+DURATION", Duration a Go duration, Class and Origin
// as BORA_LEASE gave them.
type Request struct {
	Name     string
	VMs      int
	CPU      float64
	Memory   int64
	Start    string
	Duration string
	Deadline string
	Class    string
	Origin   string
}

// member is one VM of a group in the making.
type member struct {
	v    *oneVM
	spec leaseSpec
}

// Pending polls the VMs waiting for placement (one.vmpool.infoextended:
// HOLD, and PENDING with TakePending) that bora has not adopted or
// rejected, and groups them into lease requests by BORA_LEASE: VMs of
// one owner sharing an ID form one lease (held back until VMS of them
// exist, when VMS is given); a VM without BORA_LEASE is a one-VM
// best-effort lease of DefaultDuration. The result is ordered by the
// lowest VM id of each lease.
func (d *Driver) Pending(ctx context.Context) ([]PendingLease, error) {
	if err := d.errClosedIf(); err != nil {
		return nil, err
	}
	states := []oca.State{oca.Hold}
	if d.cfg.TakePending {
		states = append(states, oca.Pending)
	}
	var vms []*oneVM
	for _, st := range states {
		got, err := d.one.vms(ctx, int(st))
		if err != nil {
			return nil, fmt.Errorf("opennebula: listing %s VMs: %w", st, err)
		}
		vms = append(vms, got...)
	}
	d.mu.Lock()
	groups := map[string][]member{}
	var out []PendingLease
	for _, v := range vms {
		if _, adopted := d.refs[v.ID]; adopted || v.LeaseID != "" || v.Rejected != "" {
			continue
		}
		spec, err := vmLeaseSpec(v)
		if err != nil {
			out = append(out, PendingLease{Key: fmt.Sprintf("vm/%d", v.ID), User: v.Owner, VMIDs: []int{v.ID},
				Err: fmt.Errorf("%w: vm %d: %v", ErrBadLeaseAttr, v.ID, err)})
			continue
		}
		key := fmt.Sprintf("vm/%d", v.ID)
		if spec.ID != "" {
			key = fmt.Sprintf("%d/%s", v.UID, spec.ID)
		}
		groups[key] = append(groups[key], member{v, spec})
	}
	d.mu.Unlock()
	for key, ms := range groups {
		if pl, ok := d.groupLease(key, ms); ok {
			out = append(out, pl)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].VMIDs[0] < out[j].VMIDs[0] })
	return out, nil
}

// vmLeaseSpec reads a VM's BORA_LEASE (the zero spec when it has none).
func vmLeaseSpec(v *oneVM) (leaseSpec, error) {
	if !v.Lease.Has {
		return leaseSpec{Start: timeSpec{kind: "best-effort"}}, nil
	}
	fields := v.Lease.Vector
	if fields == nil {
		f, err := parseLeaseText(v.Lease.Text)
		if err != nil {
			return leaseSpec{}, err
		}
		fields = f
	}
	return parseLeaseSpec(fields)
}

// groupLease makes one request of the VMs sharing key; ok is false for a
// group still waiting for VMs.
func (d *Driver) groupLease(key string, ms []member) (PendingLease, bool) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].v.ID < ms[j].v.ID })
	first := ms[0]
	pl := PendingLease{Key: key, User: first.v.Owner}
	for _, m := range ms {
		pl.VMIDs = append(pl.VMIDs, m.v.ID)
	}
	var problems []string
	for _, m := range ms[1:] {
		if !m.spec.same(first.spec) {
			problems = append(problems, fmt.Sprintf("vm %d's BORA_LEASE differs from vm %d's", m.v.ID, first.v.ID))
		}
		if m.v.CPU != first.v.CPU || m.v.Memory != first.v.Memory {
			problems = append(problems, fmt.Sprintf("vm %d has CPU %g MEMORY %d, vm %d has CPU %g MEMORY %d",
				m.v.ID, m.v.CPU, m.v.Memory, first.v.ID, first.v.CPU, first.v.Memory))
		}
	}
	if n := first.spec.VMs; n > 0 && len(problems) == 0 {
		if len(ms) < n {
			return PendingLease{}, false // the others are still being created
		}
		if len(ms) > n {
			problems = append(problems, fmt.Sprintf("VMS = %d but %d VMs share ID %q", n, len(ms), first.spec.ID))
		}
	}
	if len(problems) > 0 {
		pl.Err = fmt.Errorf("%w: lease %s: %s", ErrBadLeaseAttr, key, strings.Join(problems, "; "))
		return pl, true
	}
	sp := first.spec
	created := time.Unix(first.v.STime, 0)
	for _, m := range ms {
		if t := time.Unix(m.v.STime, 0); t.After(created) {
			created = t // relative times count from the last VM's creation
		}
	}
	dur := sp.Duration
	if dur == 0 {
		dur = d.cfg.DefaultDuration
	}
	name := sp.ID
	if name == "" {
		name = first.v.Name
	}
	pl.Request = Request{
		Name:     name,
		VMs:      len(ms),
		CPU:      first.v.CPU,
		Memory:   first.v.Memory,
		Start:    sp.Start.resolve(created),
		Duration: formatDuration(dur),
		Class:    sp.Class,
		Origin:   sp.Origin,
	}
	if sp.Deadline.kind != "" {
		pl.Request.Deadline = sp.Deadline.resolve(created)
	}
	return pl, true
}

// Adopt makes the OpenNebula VMs vmIDs the VMs of lease (vmIDs[i] is its
// VM i): it writes BORA_LEASE_ID and BORA_VM_INDEX into each VM's user
// template (one.vm.update, merge), so that a restarted driver finds them,
// and maps them for the operations. Adopting the same VMs into the same
// lease again is a no-op; a VM or lease mapped otherwise is
// ErrAlreadyAdopted.
func (d *Driver) Adopt(ctx context.Context, lease uint64, vmIDs []int) error {
	if err := d.errClosedIf(); err != nil {
		return err
	}
	if len(vmIDs) == 0 {
		return fmt.Errorf("opennebula: adopt lease %d: no VMs", lease)
	}
	d.mu.Lock()
	have := d.leases[lease]
	for i, id := range vmIDs {
		if ref, ok := d.refs[id]; ok && (ref.lease != lease || ref.index != i) {
			d.mu.Unlock()
			return fmt.Errorf("opennebula: adopt vm %d into lease %d: it is vm %d of lease %d: %w",
				id, lease, ref.index, ref.lease, ErrAlreadyAdopted)
		}
		if i < len(have) && have[i] >= 0 && have[i] != id {
			d.mu.Unlock()
			return fmt.Errorf("opennebula: adopt vm %d into lease %d: its vm %d is opennebula vm %d: %w",
				id, lease, i, have[i], ErrAlreadyAdopted)
		}
	}
	d.mu.Unlock()
	var errs []error
	for i, id := range vmIDs {
		if err := d.one.annotate(ctx, id, adoptAttrs(lease, i)); err != nil {
			errs = append(errs, fmt.Errorf("opennebula: adopt vm %d into lease %d: %w", id, lease, err))
			continue
		}
		d.mu.Lock()
		d.record(lease, i, id)
		d.watchOf(id)
		d.mu.Unlock()
	}
	if len(errs) == 0 {
		d.log.WithField("lease_id", lease).WithField("one_vms", vmIDs).Info("adopted opennebula vms")
	}
	return errors.Join(errs...)
}

// Reject marks VMs bora will not make a lease of (a request the
// scheduler refused, or a bad BORA_LEASE): it writes reason into their
// BORA_ERROR attribute, which their owner sees in `onevm show`, and
// Pending skips them from then on. Removing BORA_ERROR (onevm update)
// submits them again.
func (d *Driver) Reject(ctx context.Context, vmIDs []int, reason string) error {
	if err := d.errClosedIf(); err != nil {
		return err
	}
	if reason == "" {
		reason = "rejected by bora"
	}
	var errs []error
	for _, id := range vmIDs {
		if err := d.one.annotate(ctx, id, map[string]string{attrRejected: reason}); err != nil {
			errs = append(errs, fmt.Errorf("opennebula: reject vm %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}
