package daemon

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers"
)

// node1Config is issue 11's cluster: one host node1 of 2 cores and
// 2048 MB, enactment and shutdown 10 s, and the slot table not checking
// capacity by itself (as in production), so that only the plan keeps the
// host within capacity.
func node1Config(dir string) config.Config {
	c := testConfig(dir, 0)
	c.Hosts = []config.HostSpec{{Name: "node1", CPU: 2, Memory: 2048}}
	c.Scheduler.Overheads.Enactment, c.Scheduler.Overheads.Shutdown = 10*time.Second, 10*time.Second
	c.Scheduler.CheckInvariants = false
	return c
}

// startStill starts a daemon whose simulated clock moves only when the
// test sets it (setTime); lg receives its log (nil: discarded).
func startStill(t *testing.T, c config.Config, lg *logrus.Logger) (*running, error) {
	t.Helper()
	if lg == nil {
		lg = logrus.New()
		lg.SetOutput(io.Discard)
	}
	d, err := New(context.Background(), Options{Config: c, Log: lg, SimQuiet: time.Hour})
	if err != nil {
		return nil, err
	}
	d.lastChange = time.Now() // or a restarted loop jumps to its next event at once
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- d.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r, nil
}

// setTime moves the simulated clock to simStart+secs, lets the loop run a
// pass there and the driver's operations due by then finish: it waits
// until the executor's workers and the clock's timers have settled.
func setTime(t *testing.T, d *running, secs float64) {
	t.Helper()
	at := simStart.Add(time.Duration(secs * float64(time.Second)))
	type mark struct{ timers, busy, calls int }
	var last mark
	for i, same := 0, 0; i < 200 && same < 3; i++ {
		d.clk.(*clock.Sim).Set(at) // fires the timers of operations begun since
		if _, err := d.call(context.Background(), func(*tx) (any, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		m := mark{d.clk.(*clock.Sim).Waiting(), d.exec.busy(), d.exec.inCalls()}
		switch {
		case m.busy > m.calls && i < 80:
			// An operation not yet in its driver call (a worker not yet
			// run on a loaded machine, or awaitLate's hold of up to
			// opLateWait): not settled, whatever the counts say.
			last, same = m, 0
		case m == last:
			same++
		default:
			last, same = m, 0
		}
	}
}

// checkScheduler runs the scheduler's invariant check on the loop, which
// owns the scheduler (from the test's goroutine it would race a pass).
func checkScheduler(t *testing.T, d *running) {
	t.Helper()
	if _, err := d.call(context.Background(), func(*tx) (any, error) { return nil, d.sched.Check() }); err != nil {
		t.Fatal(err)
	}
}

// withinCapacity fails the test if node1 has more than its 2 cores
// reserved now, or the fake driver runs more than 2 VMs on it.
func withinCapacity(t *testing.T, d *running, when string) {
	t.Helper()
	hosts, err := d.ListHosts(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if h.UsedCPU > h.CPU {
			t.Errorf("%s: host %s has %g cores, %g used", when, h.Name, h.CPU, h.UsedCPU)
		}
	}
	vms, err := d.drv.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	live := 0
	for _, v := range vms {
		if v.State == drivers.Running || v.State == drivers.Paused {
			live++
		}
	}
	if live > 2 {
		t.Errorf("%s: the fake driver runs %d VMs on node1 (2 cores): %+v", when, live, vms)
	}
	if _, err := d.call(context.Background(), func(*tx) (any, error) { return nil, d.sched.Check() }); err != nil {
		t.Errorf("%s: %v", when, err)
	}
}

// createXY submits issue 11's leases: X, external and suspendable, 2 VMs
// of 1 core and 1024 MB for 3 min from +30 s; Y, an advance reservation
// of 2 such VMs for 5 min at yStart.
func createXY(t *testing.T, d *running, yStart string) (x, y api.Lease) {
	t.Helper()
	ctx := context.Background()
	x, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "X", VMs: 2, Duration: "3m", NotBefore: "+30s",
		Origin: "external", Class: "suspendable"})
	if err != nil {
		t.Fatal(err)
	}
	y, err = d.CreateLease(ctx, admin, api.LeaseRequest{Name: "Y", VMs: 2, Duration: "5m", Start: yStart, Class: "non-preemptable"})
	if err != nil || y.State != "scheduled" {
		t.Fatalf("Y: %+v, %v", y, err)
	}
	return x, y
}

// TestAdminSuspendNearEndRefused is issue 11 item 1 through the daemon:
// X (2 VMs of 1 core and 1024 MB, 3 min, from +30 s) prepares over
// [30, 40) s, runs over [40, 220) and shuts down over [220, 230); the
// advance reservation Y (2 VMs, 5 min) prepares from +4 min. An admin
// suspend of X at 160 s would hold node1 until 160 + 324.323 = 484.323 s
// (L^s = 2*0.005 + 2*1024/6.36 + 2.3), over Y's start: it is refused
// (409, operation-does-not-fit). X ends as planned, Y runs from 250 s, the
// host never has more than 2 cores reserved or 2 VMs running, and the
// daemon starts again over its store.
func TestAdminSuspendNearEndRefused(t *testing.T) {
	c := node1Config(t.TempDir())
	d, err := startStill(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x, y := createXY(t, d, "+4m")
	for _, s := range []float64{30, 40, 100, 160} {
		setTime(t, d, s)
	}
	if l, _ := d.GetLease(ctx, admin, x.ID); l.State != "running" {
		t.Fatalf("X at 160 s: %s", l.State)
	}
	_, err = d.LeaseAction(ctx, admin, x.ID, "suspend")
	if !errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), "operation-does-not-fit") {
		t.Fatalf("suspend of X at 160 s: %v; want a conflict, operation-does-not-fit", err)
	}
	for _, s := range []float64{200, 220, 230, 240, 250, 300} {
		setTime(t, d, s)
		withinCapacity(t, d, time.Duration(s*float64(time.Second)).String())
	}
	if l, _ := d.GetLease(ctx, admin, x.ID); l.State != "done" {
		t.Errorf("X at 300 s: %s, want done", l.State)
	}
	if l, _ := d.GetLease(ctx, admin, y.ID); l.State != "running" {
		t.Errorf("Y at 300 s: %s, want running", l.State)
	}
	d.stop(t)
	again, err := startStill(t, c, nil)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	withinCapacity(t, again, "after the restart")
}
