package daemon

import (
	"context"
	"io"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
)

// TestDryRunIsSubmit: on two hosts of one core, h0 runs L1 (2 h) and L2
// (2 VMs) waits for it; a dry run of each request below answers what
// CreateLease then does (same state, reason, start, end, hosts), and
// creates nothing (the lease list is unchanged, the next ID too).
func TestDryRunIsSubmit(t *testing.T) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	dd, err := New(context.Background(), Options{Config: testConfig(t.TempDir(), 2), Log: lg, SimQuiet: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &running{Daemon: dd, cancel: cancel, done: make(chan error, 1)}
	go func() { d.done <- dd.Run(ctx) }()
	t.Cleanup(func() { d.stop(t) })
	bg := context.Background()
	for _, r := range []api.LeaseRequest{{VMs: 1, Duration: "2h"}, {VMs: 2, Duration: "1h"}} {
		if l, err := d.CreateLease(bg, alice, r); err != nil || l.State == "rejected" {
			t.Fatalf("%+v: %v %s", r, err, l.State)
		}
	}
	for _, tc := range []struct {
		name  string
		req   api.LeaseRequest
		state string
	}{
		// h1 is free until L2's reservation at L1's end: 1 h fits before
		// it, from now (no enactment overhead: it runs at once).
		{"backfilled", api.LeaseRequest{VMs: 1, Duration: "1h"}, "running"},
		// After L2: both hosts.
		{"queued behind", api.LeaseRequest{VMs: 2, Duration: "3h"}, "scheduled"},
		// No room now for 2 VMs, and a local immediate lease preempts
		// only external ones: rejected.
		{"rejected", api.LeaseRequest{VMs: 2, Duration: "1h", Start: "now"}, "rejected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := d.ListLeases(bg, admin, api.LeaseFilter{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := d.DryRunLease(bg, alice, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := d.ListLeases(bg, admin, api.LeaseFilter{})
			if !reflect.DeepEqual(before, after) {
				t.Fatal("the dry run changed the leases")
			}
			l, err := d.CreateLease(bg, alice, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if l.ID != uint64(len(before)+1) {
				t.Errorf("lease ID %d after %d leases: the dry run took an ID", l.ID, len(before))
			}
			got := api.LeasePlan{State: l.State, Reason: l.Reason, Detail: l.Detail}
			if len(l.Plan) > 0 && l.State != "rejected" {
				got.Start, got.End = l.Plan[0].Start, l.Plan[len(l.Plan)-1].End
				got.Hosts = slices.Compact(slices.Sorted(slices.Values(l.Plan[0].Hosts)))
			}
			if !reflect.DeepEqual(p, got) || p.State != tc.state {
				t.Errorf("dry run %+v, CreateLease %+v (want %s)", p, got, tc.state)
			}
		})
	}
}
