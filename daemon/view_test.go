package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"

	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// TestRejectedLeaseHasNoVMNames: a lease of 20 VMs of 2 cores never fits
// on two single-core hosts; it is rejected without ever starting, so it
// has no VMs and the API lists no driver VM names for it. A lease that
// ran lists its VMs' names.
func TestRejectedLeaseHasNoVMNames(t *testing.T) {
	d := start(t, testConfig(t.TempDir(), 2))
	ctx := context.Background()
	created, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 20, CPU: 2, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.GetLease(ctx, alice, created.ID) // the full view, as bora lease show gets it
	if err != nil {
		t.Fatal(err)
	}
	if l.State != "rejected" || len(l.DriverIDs) != 0 {
		t.Errorf("got %s with driver ids %v, want rejected with none", l.State, l.DriverIDs)
	}
	if l.Detail != "20 VMs of 2 cores and 1024 MB each never fit on this cluster" {
		t.Errorf("detail %q", l.Detail)
	}
	ok, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	ran := waitFor(t, d, ok.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	if len(ran.DriverIDs) != 1 {
		t.Errorf("running lease: driver ids %v, want its one VM", ran.DriverIDs)
	}
}

// TestCleanupLogSaysFinalState: the clean-up of a lease that is over is
// logged with the lease's real final state. A restart that finds VMs of a
// cancelled lease still on the hosts cleans them up (startup, in
// reconcile.go) and logged that as "done".
func TestCleanupLogSaysFinalState(t *testing.T) {
	lg, hook := logtest.NewNullLogger()
	d := startLogged(t, testConfig(t.TempDir(), 1), lg)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "10h"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	if _, err := d.CancelLease(ctx, alice, l.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l.ID, "cancelled", func(l api.Lease) bool { return l.State == "cancelled" })
	// What startup enacts for VMs left over from a lease that is over (by
	// now released from the scheduler: finished.go).
	if _, err := d.call(ctx, func(*tx) (any, error) {
		sl, err := d.lookup(l.ID)
		if err != nil {
			return nil, err
		}
		d.exec.enact([]scheduler.Action{{At: d.clk.Now(), Op: scheduler.ActDone, Lease: l.ID, Hosts: sl.Hosts}})
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	d.stop(t)
	var cleanups []string
	for _, e := range hook.AllEntries() {
		if e.Data["lease_id"] != l.ID {
			continue
		}
		if e.Message == "done" {
			t.Errorf("the cancelled lease is logged as done: %v", e.Data)
		}
		if strings.Contains(e.Message, "cleaning up") {
			cleanups = append(cleanups, e.Message+" state="+fmt.Sprint(e.Data["state"]))
		}
	}
	want := "lease over (cancelled): cleaning up its VMs state=cancelled"
	if len(cleanups) != 1 || cleanups[0] != want {
		t.Errorf("clean-up log lines %q, want [%q]", cleanups, want)
	}
}
