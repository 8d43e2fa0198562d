package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/fielderr"
)

// DryRunLease is the fake service's plan, as CreateLease would decide
// (scheduled from t0 + 1 min on node01, or rejected above 8 VMs), with
// nothing created.
func (f *fakeService) DryRunLease(_ context.Context, _ api.Caller, r api.LeaseRequest) (api.LeasePlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = r
	if r.VMs <= 0 {
		return api.LeasePlan{}, &fielderr.Error{Path: "vms", Msg: "must be positive"}
	}
	d, err := time.ParseDuration(r.Duration)
	if err != nil {
		return api.LeasePlan{}, &fielderr.Error{Path: "duration", Msg: fmt.Sprintf("%q is not a duration", r.Duration)}
	}
	if r.VMs > 8 {
		return api.LeasePlan{State: "rejected", Reason: "no-capacity", Detail: "8 cores free, 9 asked"}, nil
	}
	start := f.now.Add(time.Minute)
	return api.LeasePlan{State: "scheduled", Start: start, End: start.Add(time.Minute + d), Hosts: []string{"node01"}}, nil
}

// TestLeaseCreateDryRun: --dry-run prints the plan (start 10:01, end
// 10:01 + 1 min of preparation + 2 h = 12:02) and creates nothing; a plan
// that says no exits 3 with the reason; -o json is the API's LeasePlan;
// a bad request is a usage error as without --dry-run.
func TestLeaseCreateDryRun(t *testing.T) {
	d := startDaemon(t)
	r := d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "2", "--duration", "2h", "--dry-run")
	r.check(t, exitOK, "STATE", "scheduled", "2030-01-02 10:01:00", "2030-01-02 12:02:00", "node01")
	if n := len(d.svc.leases); n != 0 {
		t.Fatalf("the dry run created %d leases", n)
	}
	if got := d.svc.lastRequest(); got.VMs != 2 || got.Duration != "2h" {
		t.Errorf("the daemon was asked %+v", got)
	}

	r = d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "9", "--duration", "1h", "--dry-run")
	r.check(t, exitRejected, "rejected", "no-capacity", "8 cores free, 9 asked")
	if want := "the lease would be rejected: no-capacity (8 cores free, 9 asked)"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q lacks %q", r.stderr, want)
	}

	r = d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "1", "--duration", "30m", "--dry-run", "-o", "json")
	r.check(t, exitOK)
	var p api.LeasePlan
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	want := api.LeasePlan{State: "scheduled", Start: t0.Add(time.Minute), End: t0.Add(32 * time.Minute), Hosts: []string{"node01"}}
	if p.State != want.State || !p.Start.Equal(want.Start) || !p.End.Equal(want.End) || len(p.Hosts) != 1 || p.Hosts[0] != "node01" {
		t.Errorf("json plan %+v, want %+v", p, want)
	}

	r = d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "0", "--duration", "1h", "--dry-run")
	r.check(t, exitUsage)
	if n := len(d.svc.leases); n != 0 {
		t.Fatalf("the dry runs created %d leases", n)
	}
}
