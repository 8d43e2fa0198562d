package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers/opennebula"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

var _ api.Service = (*Daemon)(nil)

// CreateLease submits a lease; the answer comes once it is committed.
func (d *Daemon) CreateLease(ctx context.Context, c api.Caller, r api.LeaseRequest) (api.Lease, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		l, err := d.submit(t, submission{form: &r, caller: c, via: "api"}) // submit.go
		if err != nil {
			return nil, err
		}
		return d.view(l, true), nil
	})
	return asLease(v, err)
}

func asLease(v any, err error) (api.Lease, error) {
	if err != nil {
		return api.Lease{}, err
	}
	return v.(api.Lease), nil
}

// visible reports whether caller c may see lease l.
func visible(c api.Caller, l *scheduler.Lease) bool { return c.Admin || l.Req.User == c.User }

// ListLeases lists the caller's leases (an admin's: everyone's).
func (d *Daemon) ListLeases(ctx context.Context, c api.Caller, f api.LeaseFilter) ([]api.Lease, error) {
	if f.State != "" && !knownState(f.State) {
		return nil, fieldErr("state", "%q is not a lease state", f.State)
	}
	v, err := d.call(ctx, func(t *tx) (any, error) {
		keep := func(user string, state scheduler.State) bool {
			return (c.Admin || user == c.User) && (f.User == "" || user == f.User) && (f.State == "" || string(state) == f.State)
		}
		var ids []scheduler.LeaseID
		for _, l := range d.sched.Leases() {
			if keep(l.Req.User, l.State) {
				ids = append(ids, l.ID)
			}
		}
		for id, s := range d.over { // finished.go
			if keep(s.user, s.state) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		out := make([]api.Lease, 0, len(ids))
		for _, id := range ids {
			l, err := d.lookup(id)
			if err != nil {
				return nil, err
			}
			out = append(out, d.view(l, false))
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]api.Lease), nil
}

func knownState(s string) bool {
	for _, x := range allStates {
		if string(x) == s {
			return true
		}
	}
	return false
}

// leaseFor is lease id, live or finished, if caller c may see it.
func (d *Daemon) leaseFor(c api.Caller, id uint64) (*scheduler.Lease, error) {
	l, err := d.lookup(id) // finished.go
	if err != nil {
		return nil, err
	}
	if l == nil || !visible(c, l) {
		return nil, fmt.Errorf("lease %d: %w", id, api.ErrNotFound)
	}
	return l, nil
}

// liveLeaseFor is leaseFor for a change: a finished lease (out of the
// scheduler) is refused as the scheduler refuses a lease that is over.
func (d *Daemon) liveLeaseFor(c api.Caller, id uint64) (*scheduler.Lease, error) {
	l, err := d.leaseFor(c, id)
	if err != nil || d.sched.Lease(id) != nil {
		return l, err
	}
	return nil, mapSchedErr(fmt.Errorf("lease %d is %s: %w", id, l.State, scheduler.ErrLeaseOver))
}

// GetLease shows one lease in full.
func (d *Daemon) GetLease(ctx context.Context, c api.Caller, id uint64) (api.Lease, error) {
	return asLease(d.call(ctx, func(t *tx) (any, error) {
		l, err := d.leaseFor(c, id)
		if err != nil {
			return nil, err
		}
		return d.view(l, true), nil
	}))
}

// CancelLease cancels one of the caller's leases (an admin: anyone's).
func (d *Daemon) CancelLease(ctx context.Context, c api.Caller, id uint64) (api.Lease, error) {
	return asLease(d.call(ctx, func(t *tx) (any, error) {
		l, err := d.liveLeaseFor(c, id)
		if err != nil {
			return nil, err
		}
		acts, err := d.sched.Cancel(t.now, id)
		if err != nil {
			return nil, mapSchedErr(err)
		}
		t.acts = append(t.acts, acts...)
		t.mutated = true
		d.log.WithField("lease_id", id).WithField("user", c.User).Info("lease cancelled")
		return d.view(l, true), nil
	}))
}

func mapSchedErr(err error) error {
	switch {
	case errors.Is(err, scheduler.ErrUnknownLease):
		return fmt.Errorf("%v: %w", err, api.ErrNotFound)
	case errors.Is(err, scheduler.ErrLeaseOver), errors.Is(err, scheduler.ErrNotRunning), errors.Is(err, scheduler.ErrNoRoom):
		return fmt.Errorf("%v: %w", err, api.ErrConflict)
	}
	return err
}

// LeaseAction suspends, resumes or migrates a lease (admins only).
func (d *Daemon) LeaseAction(ctx context.Context, c api.Caller, id uint64, action string) (api.Lease, error) {
	if !c.Admin {
		return api.Lease{}, fmt.Errorf("%s needs the admin role: %w", action, api.ErrForbidden)
	}
	var fn func(time.Time, scheduler.LeaseID) ([]scheduler.Action, error)
	switch action {
	case "suspend":
		fn = d.sched.AdminSuspend
	case "resume":
		fn = d.sched.AdminResume
	case "migrate":
		fn = d.sched.AdminMigrate
	default:
		return api.Lease{}, fieldErr("action", "%q: must be suspend, resume or migrate", action)
	}
	return asLease(d.call(ctx, func(t *tx) (any, error) {
		l, err := d.liveLeaseFor(c, id)
		if err != nil {
			return nil, err
		}
		acts, err := fn(t.now, id)
		if err != nil {
			return nil, mapSchedErr(err)
		}
		t.acts = append(t.acts, acts...)
		t.mutated = true
		d.log.WithField("lease_id", id).WithField("user", c.User).Infof("lease %s by admin", action)
		return d.view(l, true), nil
	}))
}

// private reports whether caller c sees other users' leases only as busy
// (api.private_data).
func (d *Daemon) private(c api.Caller) bool { return d.cfg.API.PrivateData && !c.Admin }

// hostView is what caller c sees of host id at now.
func (d *Daemon) hostView(c api.Caller, id slottable.HostID, now time.Time) api.Host {
	h := d.hosts[id]
	used := d.leaseUse(id, now) // energy.go
	v := api.Host{Name: h.Name, CPU: float64(h.CPU) / 100, Memory: h.Memory, Enabled: h.Enabled && !h.Retired,
		Up: h.Up, Power: h.Power, UsedCPU: float64(used[slottable.CPU]) / 100, UsedMemory: used[slottable.Memory],
		EnergyKWh: d.power.energy(now, h.Name), PowerError: h.PowerError}
	v.Availability, v.AvailabilityPeriods = d.hostAvailabilityView(h.Name) // availability.go
	seen := map[uint64]bool{}
	for _, r := range d.table.ReservationsOn(id, now, now.Add(time.Nanosecond)) {
		if r.Lease == 0 || seen[r.Lease] { // lease 0: the host is off (its power reservation)
			continue
		}
		seen[r.Lease] = true
		if l := d.sched.Lease(r.Lease); d.private(c) && (l == nil || !visible(c, l)) {
			v.Busy++
			continue
		}
		v.Leases = append(v.Leases, r.Lease)
	}
	sort.Slice(v.Leases, func(i, j int) bool { return v.Leases[i] < v.Leases[j] })
	return v
}

// ListHosts lists the hosts.
func (d *Daemon) ListHosts(ctx context.Context, c api.Caller) ([]api.Host, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		out := []api.Host{}
		for i, h := range d.hosts {
			if !h.Retired {
				out = append(out, d.hostView(c, slottable.HostID(i), t.now))
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]api.Host), nil
}

// GetHost shows one host.
func (d *Daemon) GetHost(ctx context.Context, c api.Caller, name string) (api.Host, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		id, ok := d.names[name]
		if !ok {
			return nil, fmt.Errorf("host %q: %w", name, api.ErrNotFound)
		}
		return d.hostView(c, id, t.now), nil
	})
	if err != nil {
		return api.Host{}, err
	}
	return v.(api.Host), nil
}

// HostAction enables, disables, or switches a host on or off (admins).
func (d *Daemon) HostAction(ctx context.Context, c api.Caller, name, action string) (api.Host, error) {
	if !c.Admin {
		return api.Host{}, fmt.Errorf("host %s needs the admin role: %w", action, api.ErrForbidden)
	}
	switch action {
	case "enable", "disable", "on", "off":
	default:
		return api.Host{}, fieldErr("action", "%q: must be enable, disable, on or off", action)
	}
	v, err := d.call(ctx, func(t *tx) (any, error) {
		id, ok := d.names[name]
		if !ok || d.hosts[id].Retired {
			return nil, fmt.Errorf("host %q: %w", name, api.ErrNotFound)
		}
		h := d.hosts[id]
		if err := d.hostAction(t, id, h, action); err != nil {
			return nil, err
		}
		t.mutated = true
		d.log.WithField("host", name).WithField("user", c.User).Infof("host %s", action)
		return d.hostView(c, id, t.now), nil
	})
	if err != nil {
		return api.Host{}, err
	}
	return v.(api.Host), nil
}

func (d *Daemon) hostAction(t *tx, id slottable.HostID, h *host, action string) error {
	switch action {
	case "enable", "disable":
		if err := d.driverHostStatus(h.Name, action == "enable"); err != nil {
			return fmt.Errorf("host %s: %v: %w", h.Name, err, api.ErrConflict)
		}
		h.Enabled = action == "enable"
	case "on", "off":
		if err := d.power.switchHost(t, id, action == "on"); err != nil { // energy.go
			return fmt.Errorf("host %s: %v: %w", h.Name, err, api.ErrConflict)
		}
	}
	return d.setEnabled(t, id)
}

// Schedule is the slot table between from and to (zero: an hour ago, and
// a day ahead).
func (d *Daemon) Schedule(ctx context.Context, c api.Caller, from, to time.Time) (api.Schedule, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		f, e := from, to
		if f.IsZero() {
			f = t.now.Add(-time.Hour)
		}
		if e.IsZero() {
			e = t.now.Add(24 * time.Hour)
		}
		if !e.After(f) {
			return nil, fieldErr("to", "must be after from")
		}
		s := api.Schedule{Now: t.now, From: f, To: e, Intervals: []api.Interval{}}
		for _, h := range d.hosts {
			s.Hosts = append(s.Hosts, h.Name)
		}
		for _, r := range d.table.Overlapping(f, e) {
			if r.Lease == 0 {
				continue // a host off, booting or shutting down: host list shows it
			}
			iv := api.Interval{Lease: r.Lease, Host: d.hosts[r.Host].Name, Kind: r.Kind.String(), Start: r.Start, End: r.End,
				CPU: float64(r.Res[slottable.CPU]) / 100, Memory: r.Res[slottable.Memory]}
			cpu, user, known := int64(0), "", false
			if l := d.sched.Lease(r.Lease); l != nil {
				cpu, user, known = l.Req.CPU, l.Req.User, true
			} else if o, ok := d.over[r.Lease]; ok { // finished.go
				cpu, user, known = o.cpu, o.user, true
			}
			if cpu > 0 {
				iv.VMs = int(r.Res[slottable.CPU] / cpu)
			}
			if d.private(c) && (!known || !(c.Admin || user == c.User)) {
				iv.Lease, iv.Kind, iv.VMs = 0, api.BusyKind, 0
			}
			s.Intervals = append(s.Intervals, iv)
		}
		return s, nil
	})
	if err != nil {
		return api.Schedule{}, err
	}
	return v.(api.Schedule), nil
}

// Stats counts leases, preemptions and hosts.
func (d *Daemon) Stats(ctx context.Context, c api.Caller) (api.Stats, error) { return d.stats(ctx) }

func (d *Daemon) stats(ctx context.Context) (api.Stats, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		cn := d.count(t.now)
		s := api.Stats{Now: t.now, Started: d.started, Leases: cn.byState, Queue: d.sched.QueueLen(),
			Preemptions: cn.preemptions, PreemptedVMs: cn.preemptedVMs, OverheadS: cn.overhead.Seconds(),
			Rejected: cn.byState[string(scheduler.Rejected)], Decisions: d.sched.Stats().Replans}
		for _, h := range d.hosts {
			if h.Retired {
				continue
			}
			s.Hosts++
			if h.Power == "on" {
				s.HostsOn++
			}
			s.EnergyKWh += d.power.energy(t.now, h.Name)
		}
		s.ViolationRate = d.power.violationRate() // energy.go
		if d.adm != nil {
			s.Admission = d.adm.view(false) // admission.go
		}
		if cn.capCPU > 0 {
			s.Utilisation = float64(cn.usedCPU) / float64(cn.capCPU)
		}
		return s, nil
	})
	if err != nil {
		return api.Stats{}, err
	}
	return v.(api.Stats), nil
}

// hostStatuser is a driver whose hosts have their own enabled/disabled
// status (OpenNebula's one.host.status).
type hostStatuser interface {
	Enable(ctx context.Context, host string) error
	Disable(ctx context.Context, host string) error
}

// driverHostStatus carries `bora host enable|disable` to the driver when
// it has such a status; other drivers have nothing to tell.
func (d *Daemon) driverHostStatus(name string, enable bool) error {
	one, ok := d.drv.(*opennebula.Driver)
	if !ok {
		return nil
	}
	var hs hostStatuser = one.Power()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if enable {
		return hs.Enable(ctx, name)
	}
	return hs.Disable(ctx, name)
}
