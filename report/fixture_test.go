package report

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func ptr(f float64) *float64 { return &f }

// handReport is a small run of two hosts: lease 1 (local, 2 VMs) completed
// after being suspended once, lease 2 (external) was rejected and never
// started.
func handReport(name string) *Report {
	return &Report{
		Name:    name,
		Trace:   "testdata/small.swf",
		Hosts:   2,
		Options: map[string]string{"preemption": name},
		Metrics: Metrics{
			Leases: 2, Completed: 1,
			LocalRejectionRate: 0, ExternalRejectionRate: 100,
			Utilisation: 62.5, UtilisationOverheadAdj: 97.25,
			PreemptedLeases: 1, PreemptedVMs: 2,
			PreemptedByOp:       map[string]OpCount{"suspend": {Leases: 1, VMs: 2}},
			PreemptionOverheadS: 120,
			ARTS:                4500, AWRTS: 4500.125, MakespanS: 7200,
			PreemptionSearch: map[string]int{"exact": 3, "heuristic": 1},
			WallSeconds:      0.5,
		},
		Leases: []Lease{
			{ID: 1, Name: "job, one", Kind: "best-effort", Class: "cancellable", Origin: "local",
				VMs: 2, State: "done", SubmitS: 0, StartS: ptr(600), EndS: ptr(7200),
				Hosts: []int{0, 1}, Preemptions: 1, OverheadS: 120, RequestedS: 3600, RealS: 3000.5},
			{ID: 2, Kind: "best-effort", Class: "cancellable", Origin: "external",
				VMs: 1, State: "rejected", SubmitS: 30, Hosts: []int{}, Reason: "no capacity",
				RequestedS: 1800, RealS: 1800},
		},
		Gantt: []Interval{
			{Lease: 1, Host: 0, Kind: "vm", Origin: "local", StartS: 600, EndS: 3600},
			{Lease: 1, Host: 1, Kind: "vm", Origin: "local", StartS: 600, EndS: 3600},
			{Lease: 1, Host: 0, Kind: "suspend", Origin: "local", StartS: 3600, EndS: 3660},
			{Lease: 1, Host: 0, Kind: "resume", Origin: "local", StartS: 4000, EndS: 4060},
			{Lease: 1, Host: 0, Kind: "vm", Origin: "local", StartS: 4060, EndS: 7200},
			{Lease: 3, Host: 1, Kind: "vm", Origin: "external", StartS: 3700, EndS: 7000},
		},
		Utilisation: []Sample{{T: 0, Util: 0}, {T: 600, Util: 1}, {T: 3600, Util: 0.5}, {T: 4060, Util: 1}},
	}
}

// bigReport is a synthetic run of n intervals spread over hosts hosts and
// 30 days, with every kind represented; seed makes it reproducible.
func bigReport(n, hosts int, seed uint64) *Report {
	rng := rand.New(rand.NewPCG(seed, seed))
	kinds := []string{"vm", "vm", "vm", "vm", "suspend", "resume", "migrate", "shutdown"}
	r := &Report{Name: fmt.Sprintf("big-%d", n), Hosts: hosts, Metrics: Metrics{Utilisation: 55, MakespanS: 30 * 86400}}
	for i := range n {
		start := rng.Float64() * 30 * 86400
		d := 60 + rng.Float64()*6*3600
		kind := kinds[rng.IntN(len(kinds))]
		if kind != "vm" {
			d = 30 + rng.Float64()*120
		}
		origin := "local"
		if rng.IntN(3) == 0 {
			origin = "external"
		}
		r.Gantt = append(r.Gantt, Interval{Lease: uint64(i), Host: rng.IntN(hosts), Kind: kind,
			Origin: origin, StartS: start, EndS: start + d})
	}
	for t := 0.0; t < 30*86400; t += 600 {
		r.Utilisation = append(r.Utilisation, Sample{T: t, Util: rng.Float64()})
	}
	return r
}

// TestFixtures: the fixtures other tests write and read are what their
// comments say, so a writer test that passes on them is testing a sound
// report.
func TestFixtures(t *testing.T) {
	h := handReport("x")
	done, rejectedExt, external, preempted := 0, 0, 0, 0
	for _, l := range h.Leases {
		if l.State == "done" {
			done++
		}
		if l.Origin == "external" {
			external++
			if l.State == "rejected" {
				rejectedExt++
			}
		}
		if l.Preemptions > 0 {
			preempted++
		}
	}
	m := h.Metrics
	// 2 leases, 1 done, the only external one rejected (100 %), 1 preempted.
	if m.Leases != len(h.Leases) || m.Completed != done || m.ExternalRejectionRate != float64(100*rejectedExt/external) ||
		m.PreemptedLeases != preempted {
		t.Fatalf("hand report's metrics disagree with its leases: %+v", m)
	}
	for _, iv := range h.Gantt {
		if iv.StartS >= iv.EndS || iv.StartS < 0 || iv.EndS > m.MakespanS || iv.Host >= h.Hosts {
			t.Fatalf("hand report interval outside the run: %+v", iv)
		}
	}

	a, b, c := bigReport(500, 64, 3), bigReport(500, 64, 3), bigReport(500, 64, 4)
	if len(a.Gantt) != 500 || !reflect.DeepEqual(a, b) || reflect.DeepEqual(a.Gantt, c.Gantt) {
		t.Fatal("bigReport is not 500 intervals, reproducible by seed and different across seeds")
	}
	kinds := map[string]bool{}
	for _, iv := range a.Gantt {
		kinds[iv.Kind] = true
		// Starts within 30 days; a VM lasts at most 6 h + 60 s.
		if iv.Host < 0 || iv.Host >= 64 || iv.StartS < 0 || iv.StartS > 30*86400 || iv.EndS-iv.StartS > 6*3600+60 {
			t.Fatalf("big report interval out of range: %+v", iv)
		}
	}
	if len(kinds) != 5 {
		t.Fatalf("big report kinds %v, want vm, suspend, resume, migrate, shutdown", kinds)
	}
}
