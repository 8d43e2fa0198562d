package gateway

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/dispatch"
)

// states is the State, Reason and Detail of a lease's history events.
func events(l api.Lease) []api.Event { return l.History }

// TestRetryOnAdmission: round robin over a, b, c where a's admission
// stage holds at most one external lease. Leases 1-3 go to a, b, c;
// lease 4 goes to a first (4 mod 3 = index 0), which refuses it
// (admission-limit), and then to b, the first of the others by share
// (all equal, so by index). When every cluster refuses, the lease is
// rejected with the last refusal and the three refusals in its history.
func TestRetryOnAdmission(t *testing.T) {
	a, b, c := newFakeCluster(t, "a", 2, 1), newFakeCluster(t, "b", 2, 0), newFakeCluster(t, "c", 2, 0)
	g := newGateway(t, testConfig(t.TempDir(), "rr", a, b, c))
	for i, want := range []string{"a", "b", "c"} {
		if l := submit(t, g); l.Cluster != want || l.ID != uint64(i+1) || l.State != "queued" {
			t.Fatalf("lease %d: cluster %q, id %d, state %s; want %s, %d, queued", i+1, l.Cluster, l.ID, l.State, want, i+1)
		}
	}
	l4 := submit(t, g)
	if l4.Cluster != "b" || l4.State != "queued" || l4.ID != 4 {
		t.Fatalf("lease 4: cluster %q, state %s, id %d; want b, queued, 4", l4.Cluster, l4.State, l4.ID)
	}
	h := events(l4)
	if len(h) < 2 || h[0].State != OutcomeRefused || h[0].Reason != "admission-limit" ||
		!strings.HasPrefix(h[0].Detail, "cluster a: 1 external leases admitted") ||
		h[1].State != OutcomeForwarded || h[1].Detail != "cluster b, its lease 2" {
		t.Fatalf("lease 4's history: %+v", h)
	}
	// The map shows the same through GetLease.
	got, err := g.GetLease(context.Background(), alice, 4)
	if err != nil || got.Cluster != "b" || got.History[0].Reason != "admission-limit" {
		t.Fatalf("GetLease(4) = %+v, %v", got, err)
	}
	b.mu.Lock()
	b.limit = 1
	b.mu.Unlock()
	c.mu.Lock()
	c.limit = 1
	c.mu.Unlock()
	// Lease 5: rr index 1 (b) first, then a, then c; all refuse.
	l5 := submit(t, g)
	if l5.State != "rejected" || l5.Reason != "admission-limit" || l5.Cluster != "" || l5.ID != 5 {
		t.Fatalf("lease 5: %+v", l5)
	}
	var tried []string
	for _, e := range l5.History[:3] {
		if e.State != OutcomeRefused {
			t.Fatalf("lease 5's history: %+v", l5.History)
		}
		tried = append(tried, strings.Fields(e.Detail)[1])
	}
	if strings.Join(tried, ",") != "b:,a:,c:" {
		t.Fatalf("lease 5 tried %v, want b, a, c", tried)
	}
	if got, _ := g.GetLease(context.Background(), alice, 5); got.State != "rejected" || len(got.History) != len(l5.History) {
		t.Fatalf("GetLease(5) = %+v", got)
	}
}

// TestDownCluster: round robin over a and b. Once b does not answer a
// poll it is out of the split: the next leases all go to a, and lease 2,
// on b, is shown in the state unknown (not an error). When b answers
// again, lease 2 shows b's state. A cluster that fails while a lease is
// forwarded is marked down and the lease goes to the next.
func TestDownCluster(t *testing.T) {
	a, b := newFakeCluster(t, "a", 2, 0), newFakeCluster(t, "b", 2, 0)
	g := newGateway(t, testConfig(t.TempDir(), "rr", a, b))
	submit(t, g) // 1 on a
	submit(t, g) // 2 on b (its lease 1)
	b.down.Store(true)
	g.Poll(context.Background())
	for i := 3; i <= 4; i++ {
		if l := submit(t, g); l.Cluster != "a" {
			t.Fatalf("lease %d went to %q with b down", i, l.Cluster)
		}
	}
	if b.count() != 1 {
		t.Fatalf("b holds %d leases, want 1", b.count())
	}
	l2, err := g.GetLease(context.Background(), alice, 2)
	if err != nil || l2.State != StateUnknown || l2.Reason != string(ReasonClusterDown) || l2.Cluster != "b" ||
		!strings.Contains(l2.Detail, "its lease 1") {
		t.Fatalf("lease 2 with b down: %+v, %v", l2, err)
	}
	ls, err := g.ListLeases(context.Background(), alice, api.LeaseFilter{})
	if err != nil || len(ls) != 4 || ls[1].State != StateUnknown || ls[0].State != "queued" {
		t.Fatalf("list with b down: %+v, %v", ls, err)
	}
	if ls, _ := g.ListLeases(context.Background(), alice, api.LeaseFilter{State: StateUnknown}); len(ls) != 1 || ls[0].ID != 2 {
		t.Fatalf("list of the unknown leases: %+v", ls)
	}
	b.set(1, "running")
	b.down.Store(false)
	g.Poll(context.Background())
	if l2, _ := g.GetLease(context.Background(), alice, 2); l2.State != "running" || l2.Cluster != "b" {
		t.Fatalf("lease 2 with b back: %+v", l2)
	}
	// The poll rebuilt round robin from a: lease 5 to a, lease 6 to b,
	// which fails now without a poll in between: it goes to a.
	if l := submit(t, g); l.Cluster != "a" {
		t.Fatalf("lease 5 on %q, want a", l.Cluster)
	}
	b.down.Store(true)
	l6 := submit(t, g)
	if l6.Cluster != "a" || l6.History[0].State != OutcomeUnreachable || !strings.HasPrefix(l6.History[0].Detail, "cluster b: ") {
		t.Fatalf("lease 6: %+v", l6)
	}
	if st := g.Clusters(); st[1].Up || !st[0].Up {
		t.Fatalf("cluster states: %+v", st)
	}
}

// TestNoClusterUp: with every cluster down a lease is refused with
// ErrNoCluster (503), and nothing is mapped.
func TestNoClusterUp(t *testing.T) {
	a := newFakeCluster(t, "a", 2, 0)
	a.down.Store(true)
	g := newGateway(t, testConfig(t.TempDir(), "rr", a))
	_, err := g.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err == nil || !strings.Contains(err.Error(), "no cluster answers") {
		t.Fatalf("CreateLease with no cluster up: %v", err)
	}
	if all, _ := g.leases.All(); len(all) != 0 {
		t.Fatalf("%d records after a refused lease", len(all))
	}
	if g.Health(context.Background()) == nil {
		t.Fatal("healthy with no cluster up")
	}
}

// TestBadRequestNotRetried: a request the cluster refuses as bad (400)
// is the caller's error, naming the field, not a reason to try the next
// cluster; a local origin is refused by the gateway itself.
func TestBadRequestNotRetried(t *testing.T) {
	a, b := newFakeCluster(t, "a", 2, 0), newFakeCluster(t, "b", 2, 0)
	g := newGateway(t, testConfig(t.TempDir(), "rr", a, b))
	_, err := g.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 5, Duration: "1h"})
	if err == nil || !strings.Contains(err.Error(), "vms: 5 VMs on 2 hosts (cluster a)") {
		t.Fatalf("5 VMs: %v", err)
	}
	if a.count()+b.count() != 0 {
		t.Fatal("a bad request reached a cluster's map")
	}
	_, err = g.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h", Origin: "local"})
	if err == nil || !strings.HasPrefix(err.Error(), "origin: ") {
		t.Fatalf("local origin: %v", err)
	}
}

// TestRestartKeepsMap: a gateway closed and opened again on the same map
// shows every lease on its cluster, under the same id, and goes on
// numbering after the last one.
func TestRestartKeepsMap(t *testing.T) {
	a, b := newFakeCluster(t, "a", 2, 0), newFakeCluster(t, "b", 2, 0)
	cfg := testConfig(t.TempDir(), "rr", a, b)
	g, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	g.Poll(context.Background())
	for i := 0; i < 3; i++ {
		submit(t, g) // a, b, a
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	a.set(2, "done")
	g2 := newGateway(t, cfg)
	want := []struct {
		cluster string
		state   string
	}{{"a", "queued"}, {"b", "queued"}, {"a", "done"}} // a's lease 2 is the gateway's 3
	for i, w := range want {
		l, err := g2.GetLease(context.Background(), alice, uint64(i+1))
		if err != nil || l.Cluster != w.cluster || l.State != w.state {
			t.Fatalf("lease %d after the restart: %+v, %v; want on %s, %s", i+1, l, err, w.cluster, w.state)
		}
	}
	if l := submit(t, g2); l.ID != 4 {
		t.Fatalf("the first lease after the restart is %d, want 4", l.ID)
	}
	if _, err := g2.GetLease(context.Background(), api.Caller{User: "bob"}, 1); err == nil {
		t.Fatal("bob sees alice's lease")
	}
}

// TestSplitFollowsPAP: pap-rtdp over a (4 hosts) and b (2 hosts), no
// local load, external leases of 1 VM for 1 h at 0.001/s: theta_a =
// 3600/4 = 900 s, theta_b = 1800 s, and PAP's shares (computed here from
// those numbers) give the first choices of 120 leases within RTDP's 3.
func TestSplitFollowsPAP(t *testing.T) {
	a, b := newFakeCluster(t, "a", 4, 0), newFakeCluster(t, "b", 2, 0)
	cfg := testConfig(t.TempDir(), "pap-rtdp", a, b)
	cfg.Model.ExternalRate = 0.001
	g := newGateway(t, cfg)
	th := func(name string, th float64) dispatch.Cluster {
		return dispatch.Cluster{Name: name, Hosts: 1, Power: 1, Theta: th, Omega: 1.25 * th * th}
	}
	split, err := dispatch.PAP([]dispatch.Cluster{th("a", 900), th("b", 1800)}, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	n := 120
	for i := 0; i < n; i++ {
		submit(t, g)
	}
	for j, f := range []*fakeCluster{a, b} {
		want := float64(n) * split[j] / 0.001
		if got := float64(f.count()); math.Abs(got-want) > 3 {
			t.Errorf("cluster %s took %v leases, want %.1f (share %.3f)", f.name, got, want, split[j]/0.001)
		}
	}
	if split[0] <= split[1] {
		t.Errorf("PAP gives a (twice b's hosts) %v and b %v", split[0], split[1])
	}
}

// TestInputs: a cluster's inputs from the configuration alone, from a
// warm admission stage, and from one still warming up its rates and its
// local service time.
func TestInputs(t *testing.T) {
	cl := Cluster{Name: "a", Speed: 2, LocalRate: 0.001, LocalVMs: 1, LocalRun: 30 * time.Minute}
	m := Model{ExternalRate: 0.01, ExternalVMs: 2, ExternalRun: time.Hour}
	est := api.AdmissionInputs{LocalRate: 0.002, LocalServiceMeanS: 100, LocalCV: 0.5, ExternalMeanS: 300, ExternalRate: 0.004}
	cases := []struct {
		name                   string
		adm                    *api.Admission
		lambda, theta, tau, mu float64
		src                    Source
	}{
		// theta = 2 x 3600 / (4 x 2) = 900; tau = 1800 / 8 = 225;
		// mu = (0.1 x 225)^2 + 225^2 = 51131.25.
		{"no stage", nil, 0.001, 900, 225, 51131.25, Source{}},
		// mu = (0.5 x 100)^2 + 100^2 = 12500.
		{"warm", &api.Admission{Warm: true, Inputs: est}, 0.002, 300, 100, 12500, Source{true, true, true}},
		{"warming", &api.Admission{Inputs: est, Warming: []string{"arrival rates: 10m of history, need 1h",
			"local service time: 3 of 20 ends"}}, 0.001, 300, 225, 51131.25, Source{External: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, src, err := Inputs(cl, m, api.Stats{Hosts: 4, Admission: c.adm})
			if err != nil {
				t.Fatal(err)
			}
			omega := 1.25 * c.theta * c.theta // (0.5 theta)^2 + theta^2
			if got.Hosts != 4 || got.Power != 8 || got.Lambda != c.lambda || got.Theta != c.theta || got.Tau != c.tau ||
				math.Abs(got.Mu-c.mu) > 1e-9 || math.Abs(got.Omega-omega) > 1e-9 || src != c.src {
				t.Fatalf("got %+v from %v", got, src)
			}
		})
	}
	if _, _, err := Inputs(cl, m, api.Stats{}); err == nil {
		t.Fatal("a cluster without hosts has inputs")
	}
	warm := api.Stats{Admission: &api.Admission{Inputs: est}}
	if r := ExternalRate(m, []api.Stats{warm, warm, {}}); math.Abs(r-0.008) > 1e-12 {
		t.Fatalf("external rate %v, want 0.004 x 2", r)
	}
	if r := ExternalRate(m, []api.Stats{{}}); r != 0.01 {
		t.Fatalf("external rate without estimates %v, want the fallback 0.01", r)
	}
}
