package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/fielderr"
)

var simStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// testConfig is a fake cluster of n hosts of one core and 1024 MB on a
// simulated clock starting at simStart, its store in dir.
func testConfig(dir string, n int) config.Config {
	c := config.Default()
	c.Daemon.Store = filepath.Join(dir, "bora.db")
	c.Daemon.Clock, c.Daemon.Start = "simulated", simStart.Format(time.RFC3339)
	c.Daemon.OpRetries = 0
	c.API.Socket = filepath.Join(dir, "bora.sock")
	c.Jobs = config.Jobs{}
	c.Scheduler.CheckInvariants = true
	for i := 0; i < n; i++ {
		c.Hosts = append(c.Hosts, config.HostSpec{Name: fmt.Sprintf("h%d", i), CPU: 1, Memory: 1024})
	}
	return c
}

// running is a daemon whose loop runs in the background.
type running struct {
	*Daemon
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, c config.Config) *running {
	t.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	return startLogged(t, c, lg)
}

// startLogged is start with the daemon logging to lg.
func startLogged(t *testing.T, c config.Config, lg *logrus.Logger) *running {
	t.Helper()
	return startSimQuiet(t, c, lg, 20*time.Millisecond)
}

// startSimQuiet is startLogged with the simulated clock jumping to the next
// event only after quiet without a change.
func startSimQuiet(t *testing.T, c config.Config, lg *logrus.Logger, quiet time.Duration) *running {
	t.Helper()
	d, err := New(context.Background(), Options{Config: c, Log: lg, SimQuiet: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- d.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop stops the loop and checks the store's consistency.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; err != nil {
		t.Errorf("run: %v", err)
	}
}

var (
	alice = api.Caller{User: "alice", UID: 1000}
	bob   = api.Caller{User: "bob", UID: 1001}
	admin = api.Caller{User: "root", Admin: true}
)

// waitFor polls lease id until cond holds (the simulated clock runs the
// schedule in milliseconds).
func waitFor(t *testing.T, d *running, id uint64, what string, cond func(api.Lease) bool) api.Lease {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := d.GetLease(context.Background(), admin, id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("lease %d never became %s: %+v", id, what, l)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func states(l api.Lease) string {
	var s []string
	for _, e := range l.History {
		if len(s) == 0 || s[len(s)-1] != e.State {
			s = append(s, e.State)
		}
	}
	return strings.Join(s, ",")
}

// TestPreemptAndResume: two hosts run two best-effort leases of an hour;
// a local advance reservation for both hosts from 00:30 to 01:00
// suspends them (suspension of 1024 MB: 0.005 + 161.006 + 2.3 = 163.311 s,
// so from 00:27:16.689), and they resume after it and finish.
func TestPreemptAndResume(t *testing.T) {
	d := start(t, testConfig(t.TempDir(), 2))
	ctx := context.Background()
	var ids []uint64
	for i := 0; i < 2; i++ {
		l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: fmt.Sprint("be", i), VMs: 1, Duration: "1h", Origin: "external"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	ar, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "ar", VMs: 2, Duration: "30m",
		Start: simStart.Add(30 * time.Minute).Format(time.RFC3339), Class: "non-preemptable"})
	if err != nil {
		t.Fatal(err)
	}
	if ar.State != "scheduled" {
		t.Fatalf("advance reservation: %s (%s %s)", ar.State, ar.Reason, ar.Detail)
	}
	for _, id := range ids {
		l := waitFor(t, d, id, "done", func(l api.Lease) bool { return l.State == "done" })
		if got, want := states(l), "queued,scheduled,running,suspending,suspended,queued,scheduled,resuming,running,done"; !strings.Contains(got, "suspending,suspended") || !strings.HasSuffix(got, "resuming,running,done") {
			t.Fatalf("lease %d went %s, want like %s", id, got, want)
		}
		if l.Preemptions != 1 || l.Reason != "preempted" {
			t.Fatalf("lease %d: %d preemptions, reason %q", id, l.Preemptions, l.Reason)
		}
	}
	a := waitFor(t, d, ar.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if !a.Start.Equal(simStart.Add(30 * time.Minute)) {
		t.Fatalf("advance reservation started at %v", a.Start)
	}
	checkScheduler(t, d)
}

// TestRestartKeepsEverything: leases survive a daemon restart with their
// states and the schedule carries on to the end.
func TestRestartKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	c := testConfig(dir, 3)
	d := start(t, c)
	ctx := context.Background()
	want := map[uint64]string{}
	for i := 0; i < 12; i++ {
		l, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1 + i%2, Duration: fmt.Sprintf("%dm", 20+i*5)})
		if err != nil {
			t.Fatal(err)
		}
		want[l.ID] = l.State
	}
	d.stop(t)
	d2 := start(t, c)
	list, err := d2.ListLeases(ctx, alice, api.LeaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(want) {
		t.Fatalf("%d leases after restart, want %d", len(list), len(want))
	}
	for id := range want {
		waitFor(t, d2, id, "done", func(l api.Lease) bool { return l.State == "done" })
	}
	checkScheduler(t, d2)
}

// TestBadRequests: each bad request names its field and changes nothing.
func TestBadRequests(t *testing.T) {
	// The clock holds still: the lease made first must still be there to
	// cancel at the end, however slowly the requests go (-race, a loaded
	// machine: 20 ms without a change let its hour pass).
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d := startSimQuiet(t, testConfig(t.TempDir(), 1), lg, time.Hour)
	ctx := context.Background()
	ok, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := d.store.Counts()
	cases := []struct {
		name  string
		req   api.LeaseRequest
		field string
	}{
		{"no vms", api.LeaseRequest{Duration: "1h"}, "vms"},
		{"negative duration", api.LeaseRequest{VMs: 1, Duration: "-5m"}, "duration"},
		{"no duration", api.LeaseRequest{VMs: 1}, "duration"},
		{"bad duration", api.LeaseRequest{VMs: 1, Duration: "soon"}, "duration"},
		{"bad start", api.LeaseRequest{VMs: 1, Duration: "1h", Start: "tomorrow"}, "start"},
		{"bad class", api.LeaseRequest{VMs: 1, Duration: "1h", Class: "precious"}, "class"},
		{"preemptable local lease", api.LeaseRequest{VMs: 1, Duration: "1h", Class: "suspendable"}, "class"},
		{"bad origin", api.LeaseRequest{VMs: 1, Duration: "1h", Origin: "mars"}, "origin"},
		{"negative cpu", api.LeaseRequest{VMs: 1, Duration: "1h", CPU: -1}, "cpu"},
		{"deadline with now", api.LeaseRequest{VMs: 1, Duration: "1h", Start: "now", Deadline: "+2h"}, "deadline"},
		{"huge duration", api.LeaseRequest{VMs: 1, Duration: "100000h"}, "duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.CreateLease(ctx, alice, tc.req)
			var fe *fielderr.Error
			if !errors.As(err, &fe) || fe.Path != tc.field {
				t.Fatalf("got %v, want an error on field %q", err, tc.field)
			}
		})
	}
	if _, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "1h", Origin: "external"}); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("external lease from a user: %v", err)
	}
	if _, err := d.GetLease(ctx, bob, ok.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("another user's lease: %v", err)
	}
	if _, err := d.CancelLease(ctx, bob, ok.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("cancelling another user's lease: %v", err)
	}
	if _, err := d.GetLease(ctx, alice, 999); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("unknown lease: %v", err)
	}
	if _, err := d.LeaseAction(ctx, alice, ok.ID, "suspend"); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("suspend by a user: %v", err)
	}
	if _, err := d.HostAction(ctx, alice, "h0", "disable"); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("host action by a user: %v", err)
	}
	if _, err := d.ListLeases(ctx, alice, api.LeaseFilter{State: "sleeping"}); err == nil {
		t.Fatal("unknown state filter accepted")
	}
	after, _, _ := d.store.Counts()
	if after != before {
		t.Fatalf("bad requests changed the store: %d leases before, %d after", before, after)
	}
	if _, err := d.CancelLease(ctx, alice, ok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CancelLease(ctx, alice, ok.ID); !errors.Is(err, api.ErrConflict) {
		t.Fatalf("cancelling twice: %v", err)
	}
}

// TestEnactmentFailure: a boot that fails on every try fails the lease
// with the driver's message; the daemon carries on.
func TestEnactmentFailure(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Driver.Fake.Faults = []config.Fault{{Op: "start", Host: "h0", Fail: "no bootable device"}}
	d := start(t, c)
	l, err := d.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	f := waitFor(t, d, l.ID, "failed", func(l api.Lease) bool { return l.State == "failed" })
	if f.Reason != "enactment-failed" || !strings.Contains(f.Detail, "no bootable device") || len(f.EnactmentErrors) == 0 {
		t.Fatalf("failed lease: reason %q detail %q errors %v", f.Reason, f.Detail, f.EnactmentErrors)
	}
	l2, err := d.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	// h0 is free again and the mapper packs onto it: the second lease
	// fails there too; a host that always fails boots is the admin's to
	// disable.
	if _, err := d.HostAction(context.Background(), admin, "h0", "disable"); err != nil {
		t.Fatal(err)
	}
	l3, _ := d.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	waitFor(t, d, l3.ID, "done", func(l api.Lease) bool { return l.State == "done" && l.Hosts[0] == "h1" })
	_ = l2
}
