package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
	"github.com/bora-sched/bora/store"
)

// TestOverRecordRoundTrip: a finished lease's compact record gives back
// every field the API shows, and a lease that ran on other hosts before
// keeps them; the record of a plain one-minute lease stays short.
func TestOverRecordRoundTrip(t *testing.T) {
	sub := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	dl := sub.Add(3 * time.Hour)
	cases := []struct {
		name string
		l    scheduler.Lease
		max  int // bytes of the record
	}{
		{"done, one VM", scheduler.Lease{ID: 5, State: scheduler.Done,
			Req: scheduler.Request{Name: "m4", User: "alice", Arrival: time.Duration(sub.UnixNano()), Kind: scheduler.BestEffort,
				Duration: time.Minute, VMs: 1, CPU: 100, Memory: 1024, Class: scheduler.NonPreemptable, Origin: scheduler.Local},
			History: []scheduler.Event{{At: sub, State: scheduler.Pending}, {At: sub, State: scheduler.Running},
				{At: sub.Add(time.Minute), State: scheduler.Done}},
			Submitted: sub, Ready: sub, FirstStart: sub, End: sub.Add(time.Minute),
			Hosts: []slottable.HostID{4}, AllHosts: []slottable.HostID{4}, Ops: map[scheduler.Operation]int{}}, 400},
		{"cancelled after a migration, deadline missed", scheduler.Lease{ID: 7, State: scheduler.Cancelled,
			Reason: "preempted", Detail: "by lease 9",
			Req: scheduler.Request{Name: "x", User: "bob", Arrival: time.Duration(sub.UnixNano()), Kind: scheduler.BestEffort,
				Duration: time.Hour, Deadline: 3 * time.Hour, VMs: 2, CPU: 50, Memory: 512, Image: "img",
				Class: scheduler.Suspendable, Origin: scheduler.External},
			History: []scheduler.Event{{At: sub, State: scheduler.Pending},
				{At: sub.Add(1500 * time.Millisecond), State: scheduler.Cancelled, Reason: "preempted", Detail: "by lease 9"}},
			Submitted: sub, Ready: sub.Add(time.Second), Deadline: dl, Remaining: 20 * time.Minute,
			FirstStart: sub.Add(time.Second), End: sub.Add(1500 * time.Millisecond),
			Hosts: []slottable.HostID{1, 2}, AllHosts: []slottable.HostID{0, 1, 2}, Preemptions: 2, Migrations: 1,
			DeadlineMissed: true, Overhead: 163311 * time.Millisecond,
			Ops: map[scheduler.Operation]int{scheduler.OpMigrate: 1, scheduler.OpCancel: 1}}, 800},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := encodeOver(&c.l)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > c.max {
				t.Errorf("record is %d bytes, want at most %d: %s", len(data), c.max, data)
			}
			got, ok, err := decodeOver(data)
			if err != nil || !ok {
				t.Fatalf("decode: %v, %v", ok, err)
			}
			if !reflect.DeepEqual(*got, c.l) {
				t.Errorf("round trip:\n got %+v\nwant %+v", *got, c.l)
			}
		})
	}
}

// TestFinishedLeaseAfterRestart: on one host, A (1 VM, 10 min) runs and
// is done; B (2 VMs) can never fit and is rejected; C, an advance
// reservation in two hours, is cancelled. All three leave the scheduler
// once over, and `lease show` and `lease list` give the same answers,
// from the store, before and after a restart: state, times, hosts,
// reason and history.
func TestFinishedLeaseAfterRestart(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	d := start(t, c)
	ctx := context.Background()
	a, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "a", VMs: 1, Duration: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "b", VMs: 2, Duration: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "c", VMs: 1, Duration: "1h", Start: "+2h"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CancelLease(ctx, alice, cl.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, a.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	ids := []uint64{a.ID, b.ID, cl.ID}
	before := map[uint64]api.Lease{}
	for _, id := range ids {
		// The lease is over once its clean-up has run: then it leaves the scheduler.
		deadline := time.Now().Add(10 * time.Second)
		for gone := false; !gone; {
			v, _ := d.call(ctx, func(*tx) (any, error) { return d.sched.Lease(id) == nil, nil })
			gone = v.(bool)
			if !gone && time.Now().After(deadline) {
				t.Fatalf("lease %d, over, is still in the scheduler", id)
			}
			time.Sleep(2 * time.Millisecond)
		}
		before[id], err = d.GetLease(ctx, alice, id)
		if err != nil {
			t.Fatal(err)
		}
	}
	listBefore, err := d.ListLeases(ctx, alice, api.LeaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	d.stop(t)
	d2 := start(t, c)
	for _, id := range ids {
		got, err := d2.GetLease(ctx, alice, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, before[id]) {
			t.Errorf("lease %d after a restart:\n got %+v\nwant %+v", id, got, before[id])
		}
	}
	listAfter, err := d2.ListLeases(ctx, alice, api.LeaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(listAfter, listBefore) || len(listAfter) != 3 {
		t.Errorf("lease list after a restart:\n got %+v\nwant %+v", listAfter, listBefore)
	}
	// A ran from 00:00 to 00:10 on h0 (no enactment overhead configured).
	ga := before[a.ID]
	if ga.State != "done" || ga.Start == nil || !ga.Start.Equal(simStart) || ga.End == nil ||
		!ga.End.Equal(simStart.Add(10*time.Minute)) || len(ga.Hosts) != 1 || ga.Hosts[0] != "h0" ||
		states(ga) != "pending,queued,scheduled,running,done" {
		t.Errorf("A: %s %v-%v on %v, history %s", ga.State, ga.Start, ga.End, ga.Hosts, states(ga))
	}
	if g := before[b.ID]; g.State != "rejected" || g.Reason != "larger-than-cluster" || g.End == nil {
		t.Errorf("B: %s (%s)", g.State, g.Reason)
	}
	if g := before[cl.ID]; g.State != "cancelled" || g.Reason != "cancelled-by-user" || g.Start != nil {
		t.Errorf("C: %s (%s), start %v", g.State, g.Reason, g.Start)
	}
	if _, err := d2.CancelLease(ctx, alice, a.ID); !errors.Is(err, api.ErrConflict) {
		t.Errorf("cancel of a finished lease after a restart: %v, want a conflict", err)
	}
	if _, err := d2.GetLease(ctx, bob, a.ID); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("bob shown alice's finished lease: %v", err)
	}
	if l, err := d2.ListLeases(ctx, alice, api.LeaseFilter{State: "rejected"}); err != nil || len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("list of rejected leases: %+v, %v", l, err)
	}
}

// TestOlderStoreFinishedLease: a finished lease stored by an older borad
// in the scheduler's full form is read as finished (it stays out of the
// scheduler), shown as before, and rewritten as a compact record at the
// first commit.
func TestOlderStoreFinishedLease(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	d := start(t, c)
	ctx := context.Background()
	a, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "a", VMs: 1, Duration: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, a.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	d.stop(t)
	// Write lease a back in the form an older borad stored it in.
	st, err := store.Open(c.Daemon.Store, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := st.Lease(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	l, ok, err := decodeOver(data)
	if err != nil || !ok {
		t.Fatalf("lease %d is not stored compactly: %v %s", a.ID, err, data)
	}
	old, err := json.Marshal(scheduler.SavedLease{Lease: *l})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(store.Batch{Leases: map[uint64][]byte{a.ID: old}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	d2 := start(t, c)
	got, err := d2.GetLease(ctx, alice, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "done" || got.End == nil || !got.End.Equal(simStart.Add(10*time.Minute)) {
		t.Errorf("lease from an older store: %s, end %v", got.State, got.End)
	}
	v, _ := d2.call(ctx, func(*tx) (any, error) { return d2.sched.Lease(a.ID) == nil, nil })
	if !v.(bool) {
		t.Error("a finished lease from an older store is in the scheduler")
	}
	data, err = d2.store.Lease(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := decodeOver(data); !ok {
		t.Errorf("not rewritten compactly at the first commit: %s", data)
	}
}
