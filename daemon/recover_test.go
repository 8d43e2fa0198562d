package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// injectPanic makes the scheduler panic the next time a reservation is
// released (its Record hook, run in the middle of a change: a lease
// being cancelled has changed state, not yet its reservations). The
// restore after the panic hooks the energy controller back (attach), so
// it panics once.
func injectPanic(t *testing.T, d *running) {
	t.Helper()
	if _, err := d.call(context.Background(), func(*tx) (any, error) {
		d.sched.Record = func(scheduler.Interval) { panic("injected") }
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// storedState is lease id's state in the store.
func storedState(t *testing.T, d *running, id uint64) scheduler.State {
	t.Helper()
	st, err := d.Store().Load()
	if err != nil {
		t.Fatal(err)
	}
	var sl scheduler.SavedLease
	if err := json.Unmarshal(st.Leases[id], &sl); err != nil {
		t.Fatalf("lease %d in the store: %v", id, err)
	}
	return sl.State
}

// TestPassPanicRestores: cancelling a running lease panics halfway. The
// caller gets a 500 that says nothing was applied, the store and the
// daemon still have the lease running (no half-cancelled lease), the
// stack is logged with the pass's context, bora_pass_panics_total is 1,
// and the daemon goes on: a new lease is planned and runs, and the same
// cancel works when tried again.
func TestPassPanicRestores(t *testing.T) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	hook := logtest.NewLocal(lg)
	d := startLogged(t, testConfig(t.TempDir(), 2), lg)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "a", VMs: 1, Duration: "1h", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	// An advance reservation at 00:30 on the other host: the clock jumps
	// there, and cancelling the first lease then cuts its reservation
	// short (from 1 h to 30 min), which is recorded.
	ar, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "ar", VMs: 1, Duration: "10m",
		Start: simStart.Add(30 * time.Minute).Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, ar.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	injectPanic(t, d)

	_, err = d.CancelLease(ctx, admin, l.ID)
	if !errors.Is(err, api.ErrNotApplied) {
		t.Fatalf("cancel that panicked: %v, want api.ErrNotApplied", err)
	}
	if got := storedState(t, d, l.ID); got != scheduler.Running {
		t.Errorf("lease in the store after the panic: %s, want running", got)
	}
	if got, _ := d.GetLease(ctx, admin, l.ID); got.State != "running" {
		t.Errorf("lease after the panic: %s, want running", got.State)
	}
	if err := d.Health(ctx); err != nil {
		t.Errorf("health after the panic: %v", err)
	}
	if n := metric(t, d, "bora_pass_panics_total"); n != 1 {
		t.Errorf("bora_pass_panics_total %v, want 1", n)
	}
	var logged *logrus.Entry
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.ErrorLevel && strings.Contains(e.Message, "pass panicked") {
			logged = e
		}
	}
	if logged == nil {
		t.Fatal("no error logged for the panic")
	}
	if s, _ := logged.Data["stack"].(string); !strings.Contains(s, "injectPanic") || logged.Data["panic"] != "injected" ||
		logged.Data["stage"] != "event 1 of 1" {
		t.Errorf("panic logged with panic %v, stage %v, stack:\n%s", logged.Data["panic"], logged.Data["stage"], s)
	}

	// The daemon carries on: a new lease is planned and runs after the
	// advance reservation, and the cancel works the second time.
	l2, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "b", VMs: 1, Duration: "1h", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l2.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	if _, err := d.CancelLease(ctx, admin, l.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l.ID, "cancelled", func(l api.Lease) bool { return l.State == "cancelled" })
	checkScheduler(t, d)
}

// TestPassPanicRestoreFails: when the state cannot be restored after a
// panic (here the store is gone), the daemon stops with an error that
// says so rather than run on a half state, and the caller gets a 503.
func TestPassPanicRestoreFails(t *testing.T) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: testConfig(t.TempDir(), 1), Log: lg, SimQuiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- d.Run(ctx) }()
	_, err = d.call(ctx, func(*tx) (any, error) {
		d.store.Close()
		panic("injected")
	})
	if !errors.Is(err, api.ErrUnavailable) {
		t.Errorf("caller: %v, want api.ErrUnavailable", err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "restoring the state from the store after a panic") {
			t.Errorf("run: %v, want it to stop on the failed restore", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon runs on after a restore failed")
	}
}
