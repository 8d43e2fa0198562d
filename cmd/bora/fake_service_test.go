package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/fielderr"
)

// fakeService is a hand-written api.Service for the CLI's tests: leases in
// a map, two hosts, a fixed clock. More than 8 VMs is rejected; vms <= 0
// is a field error; users see only their own leases.
type fakeService struct {
	mu     sync.Mutex
	now    time.Time
	next   uint64
	leases map[uint64]*api.Lease
	hosts  map[string]*api.Host
	last   api.LeaseRequest // the last request created
}

var t0 = time.Date(2030, 1, 2, 10, 0, 0, 0, time.UTC)

func newFakeService() *fakeService {
	return &fakeService{now: t0, next: 1, leases: map[uint64]*api.Lease{}, hosts: map[string]*api.Host{
		"node01": {Name: "node01", CPU: 8, Memory: 16384, Enabled: true, Up: true, Power: "on", UsedCPU: 2, UsedMemory: 2048, Leases: []uint64{1},
			Availability: 2.0 / 3, AvailabilityPeriods: 1},
		"node02": {Name: "node02", CPU: 8, Memory: 16384, Enabled: false, Power: "off"},
	}}
}

func (f *fakeService) lastRequest() api.LeaseRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *fakeService) CreateLease(_ context.Context, c api.Caller, r api.LeaseRequest) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = r
	if r.VMs <= 0 {
		return api.Lease{}, &fielderr.Error{Path: "vms", Msg: "must be positive"}
	}
	d, err := time.ParseDuration(r.Duration)
	if err != nil {
		return api.Lease{}, &fielderr.Error{Path: "duration", Msg: fmt.Sprintf("%q is not a duration", r.Duration)}
	}
	start := f.now.Add(time.Minute)
	l := &api.Lease{ID: f.next, Name: r.Name, User: c.User, Kind: "best-effort", Class: "suspendable", Origin: "local",
		State: "scheduled", VMs: r.VMs, CPU: 1, Memory: 1024, Submitted: f.now, Start: &start,
		DurationS: d.Seconds(), RemainingS: d.Seconds(), Hosts: []string{"node01"},
		History: []api.Event{{At: f.now, State: "pending"}, {At: f.now, State: "scheduled", Reason: "fits"}},
		Plan: []api.Phase{{Kind: "prepare", Start: start, End: start.Add(time.Minute), Hosts: []string{"node01"}},
			{Kind: "vm", Start: start.Add(time.Minute), End: start.Add(time.Minute + d), Hosts: []string{"node01"}}}}
	if r.VMs > 8 {
		l.State, l.Reason, l.Detail, l.Start, l.Hosts, l.Plan = "rejected", "no-capacity", "8 cores free, 9 asked", nil, nil, nil
		l.History = append(l.History[:1], api.Event{At: f.now, State: "rejected", Reason: "no-capacity"})
	}
	f.next++
	f.leases[l.ID] = l
	return *l, nil
}

func (f *fakeService) find(c api.Caller, id uint64) (*api.Lease, error) {
	l, ok := f.leases[id]
	if !ok || (!c.Admin && l.User != c.User) {
		return nil, fmt.Errorf("lease %d: %w", id, api.ErrNotFound)
	}
	return l, nil
}

func (f *fakeService) ListLeases(_ context.Context, c api.Caller, flt api.LeaseFilter) ([]api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []api.Lease
	for _, l := range f.leases {
		if (c.Admin || l.User == c.User) && (flt.State == "" || flt.State == l.State) && (flt.User == "" || flt.User == l.User) {
			out = append(out, *l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (f *fakeService) GetLease(_ context.Context, c api.Caller, id uint64) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.find(c, id)
	if err != nil {
		return api.Lease{}, err
	}
	return *l, nil
}

func (f *fakeService) CancelLease(_ context.Context, c api.Caller, id uint64) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.find(c, id)
	if err != nil {
		return api.Lease{}, err
	}
	if l.State == "cancelled" {
		return api.Lease{}, fmt.Errorf("lease %d is already cancelled: %w", id, api.ErrConflict)
	}
	l.State = "cancelled"
	return *l, nil
}

func (f *fakeService) LeaseAction(_ context.Context, c api.Caller, id uint64, action string) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !c.Admin {
		return api.Lease{}, api.ErrForbidden
	}
	l, err := f.find(c, id)
	if err != nil {
		return api.Lease{}, err
	}
	l.State = action + "ing"
	return *l, nil
}

func (f *fakeService) ListHosts(context.Context, api.Caller) ([]api.Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []api.Host{*f.hosts["node01"], *f.hosts["node02"]}, nil
}

func (f *fakeService) GetHost(_ context.Context, _ api.Caller, name string) (api.Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.hosts[name]
	if !ok {
		return api.Host{}, fmt.Errorf("host %s: %w", name, api.ErrNotFound)
	}
	return *h, nil
}

func (f *fakeService) HostAction(_ context.Context, c api.Caller, name, action string) (api.Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !c.Admin {
		return api.Host{}, api.ErrForbidden
	}
	h, ok := f.hosts[name]
	if !ok {
		return api.Host{}, fmt.Errorf("host %s: %w", name, api.ErrNotFound)
	}
	switch action {
	case "on", "off":
		h.Power, h.Up = action, action == "on"
	default:
		h.Enabled = action == "enable"
	}
	return *h, nil
}

// Schedule: lease 1 runs on node01 10:00-11:00, is suspended 11:00-11:10,
// resumed on node02 11:30-11:40 and runs there to 12:00; lease 2 shares
// node01 10:30-11:30.
func (f *fakeService) Schedule(_ context.Context, _ api.Caller, from, to time.Time) (api.Schedule, error) {
	if from.IsZero() {
		from = t0
	}
	if to.IsZero() {
		to = t0.Add(2 * time.Hour)
	}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	return api.Schedule{Now: at(105), From: from, To: to, Hosts: []string{"node01", "node02"}, Intervals: []api.Interval{
		{Lease: 1, Host: "node01", Kind: "vm", Start: at(0), End: at(60), VMs: 1, CPU: 1, Memory: 1024},
		{Lease: 1, Host: "node01", Kind: "suspend", Start: at(60), End: at(70), VMs: 1, CPU: 1, Memory: 1024},
		{Lease: 2, Host: "node01", Kind: "vm", Start: at(30), End: at(90), VMs: 1, CPU: 1, Memory: 1024},
		{Lease: 1, Host: "node02", Kind: "resume", Start: at(90), End: at(100), VMs: 1, CPU: 1, Memory: 1024},
		{Lease: 1, Host: "node02", Kind: "vm", Start: at(100), End: at(120), VMs: 1, CPU: 1, Memory: 1024},
	}}, nil
}

func (f *fakeService) Stats(context.Context, api.Caller) (api.Stats, error) {
	return api.Stats{Now: t0, Started: t0.Add(-90 * time.Minute), Leases: map[string]int{"running": 2, "done": 5},
		Queue: 1, Preemptions: 3, PreemptedVMs: 6, OverheadS: 150, Hosts: 2, HostsOn: 1, Utilisation: 0.25,
		EnergyKWh: 1.5, Decisions: 40}, nil
}

func (f *fakeService) Admission(context.Context, api.Caller) (api.Admission, error) {
	return api.Admission{}, api.ErrNotFound
}

func (f *fakeService) Health(context.Context) error { return nil }
