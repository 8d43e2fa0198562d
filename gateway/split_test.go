package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
)

// TestEarliestFinish: earliest-finish asks every cluster for a dry run
// and sends the lease to the one that plans it to end first (b, 1 h,
// before a's 2 h); a cluster that would reject it is not tried; with
// both rejecting, the lease is refused (409) and nothing is mapped.
func TestEarliestFinish(t *testing.T) {
	a, b := newFakeCluster(t, "a", 2, 0), newFakeCluster(t, "b", 2, 0)
	a.dryFor, b.dryFor = 2*time.Hour, time.Hour
	g := newGateway(t, testConfig(t.TempDir(), "earliest-finish", a, b))
	if l := submit(t, g); l.Cluster != "b" {
		t.Fatalf("lease on %q, want b (ends first)", l.Cluster)
	}
	b.mu.Lock()
	b.dryFor = 0
	b.mu.Unlock()
	if l := submit(t, g); l.Cluster != "a" || len(l.History) != 2 {
		t.Fatalf("with b rejecting: lease on %q, history %+v; want a, tried alone", l.Cluster, l.History)
	}
	a.mu.Lock()
	a.dryFor = 0
	a.mu.Unlock()
	if _, err := g.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"}); err == nil {
		t.Fatal("a lease no cluster plans was forwarded")
	}
	if all, _ := g.leases.All(); len(all) != 2 {
		t.Fatalf("%d records, want 2", len(all))
	}
}

// TestSplitFromStats: the split is built from what the polls read. b's
// admission stage reports a local rate of 0.01/s of leases that keep it
// busy 200 s each (rho_b = 2): PAP gives b nothing, and every lease goes
// to a; once b reports no estimates (the fallbacks, no local load) and
// the split is computed again, b gets leases again. An external rate in
// the configuration above the clusters' capacity still gives a split.
func TestSplitFromStats(t *testing.T) {
	a, b := newFakeCluster(t, "a", 2, 0), newFakeCluster(t, "b", 2, 0)
	b.stats.Admission = &api.Admission{Policy: "pacp", Warm: true, Inputs: api.AdmissionInputs{
		LocalRate: 0.01, LocalServiceMeanS: 200, ExternalMeanS: 1800, ExternalRate: 0.0001}}
	cfg := testConfig(t.TempDir(), "pap-rtdp", a, b)
	cfg.Model.ExternalRate = 1 // far beyond capacity: split at 95 % of it
	g := newGateway(t, cfg)
	for i := 0; i < 10; i++ {
		if l := submit(t, g); l.Cluster != "a" {
			t.Fatalf("lease %d on %q with b saturated by its local load", i+1, l.Cluster)
		}
	}
	b.mu.Lock()
	b.stats.Admission = nil
	b.mu.Unlock()
	g.Poll(context.Background()) // no change of state: the split stays
	if l := submit(t, g); l.Cluster != "a" {
		t.Fatalf("lease 11 on %q before the recomputation", l.Cluster)
	}
	g.Recompute()
	// a and b now have the same inputs (2 hosts, the fallbacks): at 95 %
	// of capacity PAP splits evenly, and RTDP alternates starting with b:
	// a, the fastest (the lowest index among equals), has X = 1, so
	// b's (0+0)/0.5 beats a's (1+0)/0.5, then a's 1/0.5 ties b's
	// (0+1)/0.5 and goes to the lower index.
	got := ""
	for i := 0; i < 4; i++ {
		got += submit(t, g).Cluster
	}
	if got != "baba" {
		t.Fatalf("leases after the recomputation went to %s, want baba", got)
	}
}
