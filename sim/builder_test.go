package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// leaseBuilder builds test requests: lease("A").VMs(2).For(time.Hour).Build().
type leaseBuilder struct{ r scheduler.Request }

func lease(name string) *leaseBuilder {
	return &leaseBuilder{scheduler.Request{Name: name, Kind: scheduler.BestEffort, VMs: 1, CPU: 100,
		Memory: 1024, Class: scheduler.Suspendable, Origin: scheduler.External}}
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (b *leaseBuilder) VMs(n int) *leaseBuilder               { b.r.VMs = n; return b }
func (b *leaseBuilder) Mem(mb int64) *leaseBuilder            { b.r.Memory = mb; return b }
func (b *leaseBuilder) At(s float64) *leaseBuilder            { b.r.Arrival = sec(s); return b }
func (b *leaseBuilder) For(s float64) *leaseBuilder           { b.r.Duration = sec(s); return b }
func (b *leaseBuilder) Real(s float64) *leaseBuilder          { b.r.Real = sec(s); return b }
func (b *leaseBuilder) Start(s float64) *leaseBuilder         { b.r.Start = sec(s); return b }
func (b *leaseBuilder) Class(c scheduler.Class) *leaseBuilder { b.r.Class = c; return b }

// AR makes it a local advance reservation starting at s.
func (b *leaseBuilder) AR(s float64) *leaseBuilder {
	b.r.Kind, b.r.Start, b.r.Origin, b.r.Class = scheduler.AdvanceReservation, sec(s), scheduler.Local, scheduler.NonPreemptable
	return b
}

// Now makes it a local immediate lease.
func (b *leaseBuilder) Now() *leaseBuilder {
	b.r.Kind, b.r.Origin, b.r.Class = scheduler.Immediate, scheduler.Local, scheduler.NonPreemptable
	return b
}

// Deadline makes it an external deadline lease that must end by s.
func (b *leaseBuilder) Deadline(s float64) *leaseBuilder {
	b.r.Kind, b.r.Deadline = scheduler.Deadline, sec(s)
	return b
}

// Local makes it a local (non-preemptable) lease, keeping its kind.
func (b *leaseBuilder) Local() *leaseBuilder {
	b.r.Origin, b.r.Class = scheduler.Local, scheduler.NonPreemptable
	return b
}

func (b *leaseBuilder) Build() scheduler.Request { return b.r }

// span is what a lease held over one interval: "A vm 0-3436.689 @0,1".
type span struct {
	lease, kind string
	start, end  float64
	hosts       []int
}

func (s span) String() string {
	hs := make([]string, len(s.hosts))
	for i, h := range s.hosts {
		hs[i] = fmt.Sprint(h)
	}
	return fmt.Sprintf("%s %s %.3f-%.3f @%s", s.lease, s.kind, s.start, s.end, strings.Join(hs, ","))
}

// spans groups the report's Gantt intervals by lease, kind and time,
// rounded to the millisecond, in time order.
func spans(r *report.Report) []string {
	names := map[uint64]string{}
	for _, l := range r.Leases {
		names[l.ID] = l.Name
	}
	round := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	byKey := map[string]*span{}
	var order []*span
	for _, iv := range r.Gantt {
		s := span{lease: names[iv.Lease], kind: iv.Kind, start: round(iv.StartS), end: round(iv.EndS)}
		key := fmt.Sprintf("%s %s %.3f %.3f", s.lease, s.kind, s.start, s.end)
		if byKey[key] == nil {
			byKey[key] = &s
			order = append(order, &s)
		}
		byKey[key].hosts = append(byKey[key].hosts, iv.Host)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].start != order[j].start {
			return order[i].start < order[j].start
		}
		return order[i].lease < order[j].lease
	})
	out := make([]string, len(order))
	for i, s := range order {
		sort.Ints(s.hosts)
		out[i] = s.String()
	}
	return out
}

// simulate runs requests on hosts single-core 1024 MB hosts with the
// invariant checker on.
func simulate(t *testing.T, hosts int, cfg scheduler.Config, reqs ...*leaseBuilder) *report.Report {
	t.Helper()
	cfg.CheckInvariants = true
	rs := make([]scheduler.Request, len(reqs))
	for i, b := range reqs {
		rs[i] = b.Build()
	}
	r, err := Run(Config{Cluster: Cluster{Hosts: hosts, CPU: 100, Memory: 1024}, Scheduler: cfg}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func leaseByName(t *testing.T, r *report.Report, name string) report.Lease {
	t.Helper()
	for _, l := range r.Leases {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no lease %s", name)
	return report.Lease{}
}

func assertSpans(t *testing.T, r *report.Report, want []string) {
	t.Helper()
	got := spans(r)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("intervals:\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
