package daemon

import (
	"context"
	"testing"

	"github.com/bora-sched/bora/api"
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
