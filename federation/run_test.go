package federation

import (
	"context"
	"errors"
	"maps"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/sim"
)

// ext is an external best-effort lease of one VM arriving at s seconds
// for d seconds.
func ext(name string, s, d float64) scheduler.Request {
	return scheduler.Request{Name: name, Kind: scheduler.BestEffort, Class: scheduler.Suspendable, Origin: scheduler.External,
		Arrival: secs(s), Duration: secs(d), VMs: 1, CPU: 100, Memory: 1024}
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// member is a cluster of hosts single-core hosts of speed 1.
func member(name string, hosts int, local ...scheduler.Request) Member {
	cfg := scheduler.DefaultConfig()
	cfg.CheckInvariants = true
	return Member{Sim: sim.Config{Name: name, Cluster: sim.Cluster{Hosts: hosts, CPU: 100, Memory: 1024}, Scheduler: cfg},
		Speed: 1, Local: local}
}

// oneAtATime gives m an admission stage that admits one external lease
// at a time.
func oneAtATime(m Member) Member {
	c := admission.DefaultConfig()
	c.Policy, c.Threshold, c.RecomputeShare = admission.OneAtATime, time.Minute, 0.001
	c.Estimator = admission.EstimatorConfig{Window: 1000 * time.Second, MinSamples: 1}
	m.Sim.Admission = &c
	return m
}

func run(t *testing.T, s Setup) *report.Report {
	t.Helper()
	r, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// placement is each lease's cluster by name ("" rejected at the gateway).
func placement(r *report.Report) map[string]string {
	out := map[string]string{}
	for _, l := range r.Leases {
		if l.Origin == string(scheduler.External) {
			out[l.Name] = l.Cluster
		}
	}
	return out
}

// TestDispatchByPolicy: four external leases on A (1 host) and B (3
// hosts), both of speed 1, no local load. rr alternates: A, B, A, B.
// pap-rtdp: theta = v*d/(M*sum s) = 5/1 = 5 s on A and 5/9 = 0.556 s on
// B, so psi_B < psi_A; at z = psi_A = 5, B alone carries
// (1 - 0)/0.556 - phi_B(5) = 1.8 - 0.485 = 1.315/s, above Lambda = 4
// leases / 30 s = 0.133/s: k = 1, B takes the whole rate, A has no share
// and is not even in the order. Every lease goes to B.
func TestDispatchByPolicy(t *testing.T) {
	reqs := []scheduler.Request{ext("e1", 0, 5), ext("e2", 10, 5), ext("e3", 20, 5), ext("e4", 30, 5)}
	for _, c := range []struct {
		policy dispatch.PolicyName
		want   map[string]string
	}{
		{dispatch.PolicyRR, map[string]string{"e1": "A", "e2": "B", "e3": "A", "e4": "B"}},
		{dispatch.PolicyPAPRTDP, map[string]string{"e1": "B", "e2": "B", "e3": "B", "e4": "B"}},
	} {
		t.Run(string(c.policy), func(t *testing.T) {
			r := run(t, Setup{Policy: c.policy, Clusters: []Member{member("A", 1), member("B", 3)}, External: reqs})
			if got := placement(r); !maps.Equal(got, c.want) {
				t.Errorf("placement %v, want %v", got, c.want)
			}
			placed := map[string]int{}
			for _, l := range c.want {
				placed[l]++
			}
			for _, cr := range r.Clusters {
				if cr.Placed != placed[cr.Name] || cr.Tried != placed[cr.Name] || cr.Refused != 0 {
					t.Errorf("cluster %s: tried %d placed %d refused %d, want %d %d 0", cr.Name, cr.Tried, cr.Placed, cr.Refused, placed[cr.Name], placed[cr.Name])
				}
			}
			if r.Metrics.Completed != 4 || r.Gateway.Rejected != 0 || r.Gateway.External != 4 {
				t.Errorf("completed %d, gateway %+v; want 4 done, none rejected", r.Metrics.Completed, r.Gateway)
			}
		})
	}
}

// TestAdmissionRefusalGoesOn: rr over A and B (one host each), A admits
// one external lease at a time. e1 (0-100 s) goes to A; e2 (10 s) to B;
// e3 (20 s) is A's turn, but A still runs e1: A refuses and the gateway
// sends e3 to the next cluster, B, where it waits for e2. A counts one
// refusal; the gateway rejects nothing. With both clusters admitting one
// at a time, e3 is refused by A and by B and rejected at the gateway.
func TestAdmissionRefusalGoesOn(t *testing.T) {
	reqs := []scheduler.Request{ext("e1", 0, 100), ext("e2", 10, 100), ext("e3", 20, 10)}
	r := run(t, Setup{Policy: dispatch.PolicyRR, Clusters: []Member{oneAtATime(member("A", 1)), member("B", 1)}, External: reqs})
	if got, want := placement(r), map[string]string{"e1": "A", "e2": "B", "e3": "B"}; !maps.Equal(got, want) {
		t.Errorf("placement %v, want %v", got, want)
	}
	a, b := r.Clusters[0], r.Clusters[1]
	if a.Tried != 2 || a.Placed != 1 || a.Refused != 1 || b.Tried != 2 || b.Placed != 2 || b.Refused != 0 {
		t.Errorf("A %+v, B %+v: want A tried 2, placed 1, refused 1; B tried 2, placed 2", a, b)
	}
	if r.Gateway.Rejected != 0 || r.Metrics.ExternalRejectionRate != 0 || r.Metrics.Completed != 3 {
		t.Errorf("gateway %+v, external rejection %v, completed %d; want no rejection, 3 done", r.Gateway, r.Metrics.ExternalRejectionRate, r.Metrics.Completed)
	}

	r = run(t, Setup{Policy: dispatch.PolicyRR, Clusters: []Member{oneAtATime(member("A", 1)), oneAtATime(member("B", 1))}, External: reqs})
	if got, want := placement(r), map[string]string{"e1": "A", "e2": "B", "e3": ""}; !maps.Equal(got, want) {
		t.Errorf("both refusing: placement %v, want %v", got, want)
	}
	if r.Gateway.Rejected != 1 || r.Gateway.Rejections[ReasonAllRefused] != 1 || r.Clusters[0].Refused != 1 || r.Clusters[1].Refused != 1 {
		t.Errorf("both refusing: gateway %+v, refused %d %d; want 1 all-refused, one refusal each", r.Gateway, r.Clusters[0].Refused, r.Clusters[1].Refused)
	}
	// 3 external leases, 1 rejected at the gateway: 33.3 %; 3 leases in all.
	if got := r.Metrics.ExternalRejectionRate; got < 33.33 || got > 33.34 || r.Metrics.Leases != 3 {
		t.Errorf("both refusing: external rejection %v over %d leases, want 33.3 %% of 3", got, r.Metrics.Leases)
	}
}

// TestEarliestFinish: A (index 0) runs a local lease 0-1,000 s on its
// one host; B is idle. e1 at 10 s for 50 s is planned on A at
// 1,000-1,050 s and on B at 10-60 s: B. e2 at 20 s: A 1,000-1,050, B
// 60-110 (after e1): B. d3, a deadline lease at 30 s for 30 s due at
// 70 s, ends no earlier than 140 s on B (after e2, which it may not
// preempt) and 1,030 s on A: no cluster meets it, the gateway rejects
// it (no-cluster).
func TestEarliestFinish(t *testing.T) {
	local := scheduler.Request{Name: "L", Kind: scheduler.Immediate, Class: scheduler.NonPreemptable, Origin: scheduler.Local,
		Duration: secs(1000), VMs: 1, CPU: 100, Memory: 1024}
	e1, e2 := ext("e1", 10, 50), ext("e2", 20, 50)
	e1.Class, e2.Class = scheduler.NonPreemptable, scheduler.NonPreemptable
	d3 := ext("d3", 30, 30)
	d3.Kind, d3.Class, d3.Deadline = scheduler.Deadline, scheduler.NonPreemptable, secs(70)
	r := run(t, Setup{Policy: dispatch.PolicyEarliestFinish, Clusters: []Member{member("A", 1, local), member("B", 1)},
		External: []scheduler.Request{e1, e2, d3}})
	if got, want := placement(r), map[string]string{"e1": "B", "e2": "B", "d3": ""}; !maps.Equal(got, want) {
		t.Errorf("placement %v, want %v", got, want)
	}
	if r.Gateway.Rejections[ReasonNoCluster] != 1 {
		t.Errorf("gateway %+v, want one no-cluster rejection", r.Gateway)
	}
	for _, l := range r.Leases {
		if l.Name == "e2" && (l.StartS == nil || *l.StartS != 60) {
			t.Errorf("e2 started at %v, want 60 s on B", l.StartS)
		}
	}
}

// TestOverallSums: the overall counts are the clusters' summed (with the
// gateway's rejections among the leases), the makespan the longest, and
// the utilisation the clusters' weighted by CPU × makespan. Under rr A
// (1 host) gets e1 (0-100 s) and e3 (arriving at 20 s, queued: 100-120
// s), B (1 host) e2 (10-60 s): A is busy 120 s of 120, B 50 of 60;
// overall (120 + 50)/(120 + 60) = 94.4 %.
func TestOverallSums(t *testing.T) {
	reqs := []scheduler.Request{ext("e1", 0, 100), ext("e2", 10, 50), ext("e3", 20, 20)}
	r := run(t, Setup{Policy: dispatch.PolicyRR, Clusters: []Member{member("A", 1), member("B", 1)}, External: reqs})
	var leases, completed, preempted int
	for _, c := range r.Clusters {
		leases += c.Metrics.Leases
		completed += c.Metrics.Completed
		preempted += c.Metrics.PreemptedVMs
	}
	if r.Metrics.Leases != leases || r.Metrics.Completed != completed || r.Metrics.PreemptedVMs != preempted || leases != 3 {
		t.Errorf("overall leases %d completed %d preempted %d; clusters sum to %d %d %d", r.Metrics.Leases, r.Metrics.Completed, r.Metrics.PreemptedVMs, leases, completed, preempted)
	}
	if r.Metrics.MakespanS != 120 || r.Clusters[0].Metrics.MakespanS != 120 || r.Clusters[1].Metrics.MakespanS != 60 {
		t.Errorf("makespans %v overall, %v A, %v B; want 120, 120, 60", r.Metrics.MakespanS, r.Clusters[0].Metrics.MakespanS, r.Clusters[1].Metrics.MakespanS)
	}
	if got, want := r.Metrics.Utilisation, 170.0/180*100; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("utilisation %v, want %v", got, want)
	}
}

// TestRoundRobinMatchesSplit: under rr with no admission stage, each
// cluster of a federation reports what a simulation of its local
// requests and its round-robin share reports (dispatch.RoundRobin and
// Merge, the experiment runner's split): the rate policies advance a
// cluster only to the arrivals it is handed.
func TestRoundRobinMatchesSplit(t *testing.T) {
	var reqs []scheduler.Request
	for i := range 30 {
		r := ext("e"+string(rune('a'+i%26))+string(rune('0'+i/26)), float64(i*37%200+i*20), float64(30+i*53%400))
		r.VMs = 1 + i%3
		reqs = append(reqs, r)
	}
	localA := []scheduler.Request{{Name: "LA", Kind: scheduler.Immediate, Class: scheduler.NonPreemptable, Origin: scheduler.Local,
		Arrival: secs(100), Duration: secs(300), VMs: 2, CPU: 100, Memory: 1024}}
	ms := []Member{member("A", 3, localA...), member("B", 2), member("C", 4)}
	r := run(t, Setup{Policy: dispatch.PolicyRR, Clusters: ms, External: reqs})
	shares, err := dispatch.RoundRobin(reqs, 3)
	if err != nil {
		t.Fatal(err)
	}
	for j, m := range ms {
		want, err := sim.Run(m.Sim, dispatch.Merge(m.Local, shares[j]))
		if err != nil {
			t.Fatal(err)
		}
		got := r.Clusters[j].Metrics
		got.WallSeconds, want.Metrics.WallSeconds = 0, 0
		if !reflect.DeepEqual(got, want.Metrics) {
			t.Errorf("cluster %s: federation %+v\nsplit %+v", m.Sim.Name, got, want.Metrics)
		}
	}
}

// TestSetupErrors: no cluster, an unknown policy, two clusters of one
// name and a bad speed are refused with ErrSetup.
func TestSetupErrors(t *testing.T) {
	reqs := []scheduler.Request{ext("e1", 0, 5)}
	bad := member("B", 1)
	bad.Speed = 0
	for name, s := range map[string]Setup{
		"no cluster": {Policy: dispatch.PolicyRR, External: reqs},
		"policy":     {Policy: "fastest", Clusters: []Member{member("A", 1)}, External: reqs},
		"same name":  {Policy: dispatch.PolicyRR, Clusters: []Member{member("A", 1), member("A", 2)}, External: reqs},
		"speed":      {Policy: dispatch.PolicyRR, Clusters: []Member{member("A", 1), bad}, External: reqs},
	} {
		if _, err := Run(context.Background(), s); err == nil || !errors.Is(err, ErrSetup) {
			t.Errorf("%s: %v, want ErrSetup", name, err)
		}
	}
}

// TestOverallRules: the three kinds of rule on made-up clusters, worked
// by hand.
func TestOverallRules(t *testing.T) {
	lease := func(origin, state string) report.Lease { return report.Lease{Origin: origin, State: state} }
	// C1: 4 local leases, 1 rejected (25 %), and 1 external; C2: 1
	// local lease, rejected (100 %). Recomputed: 2 of 5 = 40 % (the
	// plain mean of the rates would be 62.5 %).
	c1 := &report.Report{Cluster: report.Cluster{Hosts: 2, CPU: 100},
		Leases: []report.Lease{lease("local", "rejected"), lease("local", "done"), lease("local", "done"),
			lease("local", "done"), lease("external", "done")},
		Metrics: report.Metrics{LocalRejectionRate: 25, Leases: 5, MakespanS: 100, Utilisation: 50}}
	c2 := &report.Report{Cluster: report.Cluster{Hosts: 1, CPU: 100},
		Leases:  []report.Lease{lease("local", "rejected")},
		Metrics: report.Metrics{LocalRejectionRate: 100, Leases: 1, MakespanS: 40, Utilisation: 100}}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	m := Overall([]*report.Report{c1, c2}, 0)
	// Utilisation weighted by CPU x makespan: (50*20,000 + 100*4,000)/24,000.
	if !near(m.LocalRejectionRate, 40) || m.Leases != 6 || m.MakespanS != 100 || !near(m.Utilisation, 1400000.0/24000) {
		t.Errorf("local rate %v, leases %d, makespan %v, utilisation %v; want 40, 6, 100, 58.33",
			m.LocalRejectionRate, m.Leases, m.MakespanS, m.Utilisation)
	}
	if m.EnergyKWh != nil || m.ViolationRate != nil {
		t.Error("energy or violation rate measured by no cluster: aggregated anyway")
	}
	// Two external leases rejected by the gateway: 2 of the 3 external
	// leases, and 8 leases in all.
	if m := Overall([]*report.Report{c1, c2}, 2); !near(m.ExternalRejectionRate, 200.0/3) || m.Leases != 8 {
		t.Errorf("with 2 gateway rejections: external rate %v, leases %d; want 66.67, 8", m.ExternalRejectionRate, m.Leases)
	}
	// No external lease anywhere: the rate is 0, as the simulator's.
	c1.Leases = c1.Leases[:4]
	if m := Overall([]*report.Report{c1, c2}, 0); m.ExternalRejectionRate != 0 || m.ExternalCompletedPercent != 0 {
		t.Errorf("external rates over no lease: %v, %v", m.ExternalRejectionRate, m.ExternalCompletedPercent)
	}
}
