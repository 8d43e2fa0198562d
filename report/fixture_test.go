package report

import (
	"fmt"
	"math/rand/v2"
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
