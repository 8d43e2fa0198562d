package api

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// fakeService is a hand-written Service over a map: enough behaviour to
// exercise every route and error of the server. It records the last caller
// and call so tests can check what reached it.
//
// A lease named "panic" makes CreateLease panic, one named "internal"
// fails with an error the caller must not see, more than 8 VMs is
// rejected (a successful call).
type fakeService struct {
	mu         sync.Mutex
	now        time.Time
	next       uint64
	leases     map[uint64]*Lease
	hosts      map[string]*Host
	unhealthy  error
	calls      []string
	lastCaller Caller
	from, to   time.Time
}

func newFakeService() *fakeService {
	return &fakeService{
		now:    time.Date(2030, 1, 2, 10, 0, 0, 0, time.UTC),
		next:   1,
		leases: map[uint64]*Lease{},
		hosts: map[string]*Host{
			"h1": {Name: "h1", CPU: 8, Memory: 16384, Enabled: true, Up: true, Power: "on"},
			"h2": {Name: "h2", CPU: 8, Memory: 16384, Enabled: true, Power: "off"},
		},
	}
}

func (f *fakeService) record(c Caller, call string) {
	f.lastCaller = c
	f.calls = append(f.calls, call)
}

// called is the calls the service saw, in order.
func (f *fakeService) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeService) caller() Caller {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastCaller
}

func (f *fakeService) CreateLease(_ context.Context, c Caller, r LeaseRequest) (Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "CreateLease")
	switch r.Name {
	case "panic":
		panic("the fake service panics on purpose")
	case "internal":
		return Lease{}, errors.New("the store's disk is on fire at /var/lib/bora")
	case "not-applied":
		return Lease{}, fmt.Errorf("%w (panic: runtime error in the scheduler)", ErrNotApplied)
	}
	if r.VMs <= 0 {
		return Lease{}, &fielderr.Error{Path: "vms", Msg: "must be positive"}
	}
	d, err := time.ParseDuration(r.Duration)
	if err != nil || d <= 0 {
		return Lease{}, &fielderr.Error{Path: "duration", Msg: "must be a positive duration such as 90m"}
	}
	if r.Origin == "external" && !c.External && !c.Admin {
		return Lease{}, fmt.Errorf("external lease: %w", ErrForbidden)
	}
	start := f.now.Add(time.Minute)
	l := &Lease{ID: f.next, Name: r.Name, User: c.User, Kind: "best-effort", Class: "suspendable",
		Origin: "local", State: "scheduled", VMs: r.VMs, CPU: 1, Memory: 1024, Submitted: f.now,
		Start: &start, DurationS: d.Seconds(), RemainingS: d.Seconds(), Hosts: []string{"h1"},
		History: []Event{{At: f.now, State: "pending"}, {At: f.now, State: "scheduled"}},
		Plan:    []Phase{{Kind: "vm", Start: start, End: start.Add(d), Hosts: []string{"h1"}}}}
	if r.VMs > 8 {
		l.State, l.Reason, l.Start, l.Hosts, l.Plan = "rejected", "no-capacity", nil, nil, nil
	}
	f.next++
	f.leases[l.ID] = l
	return *l, nil
}

// visible is the lease id if c may see it.
func (f *fakeService) visible(c Caller, id uint64) (*Lease, error) {
	l, ok := f.leases[id]
	if !ok || (!c.Admin && l.User != c.User) {
		return nil, fmt.Errorf("lease %d: %w", id, ErrNotFound)
	}
	return l, nil
}

func (f *fakeService) ListLeases(_ context.Context, c Caller, flt LeaseFilter) ([]Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "ListLeases")
	var out []Lease
	for _, l := range f.leases {
		if (c.Admin || l.User == c.User) && (flt.State == "" || l.State == flt.State) && (flt.User == "" || l.User == flt.User) {
			out = append(out, *l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (f *fakeService) GetLease(_ context.Context, c Caller, id uint64) (Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "GetLease")
	l, err := f.visible(c, id)
	if err != nil {
		return Lease{}, err
	}
	return *l, nil
}

func (f *fakeService) CancelLease(_ context.Context, c Caller, id uint64) (Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "CancelLease")
	l, err := f.visible(c, id)
	if err != nil {
		return Lease{}, err
	}
	if l.State == "cancelled" || l.State == "done" || l.State == "rejected" {
		return Lease{}, fmt.Errorf("lease %d is %s: %w", id, l.State, ErrConflict)
	}
	l.State = "cancelled"
	return *l, nil
}

func (f *fakeService) LeaseAction(_ context.Context, c Caller, id uint64, action string) (Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "LeaseAction "+action)
	if !c.Admin {
		return Lease{}, ErrForbidden
	}
	l, err := f.visible(c, id)
	if err != nil {
		return Lease{}, err
	}
	l.State = map[string]string{"suspend": "suspending", "resume": "resuming", "migrate": "migrating"}[action]
	return *l, nil
}

func (f *fakeService) ListHosts(_ context.Context, c Caller) ([]Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "ListHosts")
	var out []Host
	for _, h := range f.hosts {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (f *fakeService) GetHost(_ context.Context, c Caller, name string) (Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "GetHost")
	h, ok := f.hosts[name]
	if !ok {
		return Host{}, fmt.Errorf("host %s: %w", name, ErrNotFound)
	}
	return *h, nil
}

func (f *fakeService) HostAction(_ context.Context, c Caller, name, action string) (Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "HostAction "+action)
	if !c.Admin {
		return Host{}, ErrForbidden
	}
	h, ok := f.hosts[name]
	if !ok {
		return Host{}, fmt.Errorf("host %s: %w", name, ErrNotFound)
	}
	switch action {
	case "enable", "disable":
		h.Enabled = action == "enable"
	case "on", "off":
		h.Power, h.Up = action, action == "on"
	}
	return *h, nil
}

func (f *fakeService) Schedule(_ context.Context, c Caller, from, to time.Time) (Schedule, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "Schedule")
	f.from, f.to = from, to
	if from.IsZero() {
		from = f.now.Add(-time.Hour)
	}
	if to.IsZero() {
		to = f.now.Add(24 * time.Hour)
	}
	return Schedule{Now: f.now, From: from, To: to, Hosts: []string{"h1", "h2"},
		Intervals: []Interval{{Lease: 1, Host: "h1", Kind: "vm", Start: f.now, End: f.now.Add(time.Hour), VMs: 1, CPU: 1, Memory: 1024}}}, nil
}

func (f *fakeService) Stats(_ context.Context, c Caller) (Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "Stats")
	return Stats{Now: f.now, Started: f.now.Add(-time.Hour), Leases: map[string]int{"scheduled": len(f.leases)}, Hosts: 2, HostsOn: 1}, nil
}

func (f *fakeService) Admission(_ context.Context, c Caller) (Admission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(c, "Admission")
	return Admission{}, ErrNotFound
}

func (f *fakeService) Health(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unhealthy
}

func (f *fakeService) setUnhealthy(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unhealthy = err
}
