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
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/scheduler"
)

// TestLateSuspensionAfterRestart: host h0 of 2 cores and 2048 MB; lease E
// (external, 2 VMs of 1 core and 1024 MB) runs there, and advance
// reservation L (2 such VMs) at +4m preempts it. A suspension is
// overridden to 60 s per VM, so E's is planned to take 2 x 0.005 + 2.3 +
// 2 x 60 = 122.31 s, from 240 - 122.31 = 117.69 s to 240 s; the fake
// driver does it in 120.01 s. borad stops (its operations cut off, as
// by kill -9) 60 s into the suspension and starts again: the suspension
// is done again from the start and ends about 60 s after 240 s. The plan
// follows (operation-late on E and on L, which starts after it), the
// API shows E suspending past 240 s, and L's VMs start only after E's
// have left the host: the host never runs more than its 2 cores.
func TestLateSuspensionAfterRestart(t *testing.T) {
	c := testConfig(t.TempDir(), 0)
	c.Hosts = append(c.Hosts, testConfig("", 1).Hosts[0])
	c.Hosts[0].CPU, c.Hosts[0].Memory = 2, 2048
	c.Daemon.Clock, c.Daemon.Speed = "scaled", 40
	c.Daemon.ShutdownTimeout = time.Millisecond // operations in progress are cut off
	c.Scheduler.Overheads.SuspendOverride = time.Minute
	c.Scheduler.Overheads.Enactment = 10 * time.Second
	ctx := context.Background()
	d := start(t, c)
	e, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "E", VMs: 2, Duration: "1h", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, e.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "L", VMs: 2, Duration: "5m", Start: "+4m", Class: "non-preemptable"})
	if err != nil || l.State != "scheduled" {
		t.Fatalf("L: %+v, %v", l, err)
	}
	planned := l.Start // E's suspension is planned to end there
	waitFor(t, d, e.ID, "suspending", func(l api.Lease) bool { return l.State == "suspending" })
	sleepUntil(t, d, planned.Add(-62*time.Second)) // 60 s into the suspension
	d.stop(t)

	d2 := start(t, c)
	var sawLate bool
	deadline := time.Now().Add(30 * time.Second)
	for {
		vms, err := d2.drv.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		eOn, lOn := 0, 0
		for _, v := range vms {
			if v.State != drivers.Running && v.State != drivers.Paused {
				continue
			}
			switch v.Lease {
			case e.ID:
				eOn++
			case l.ID:
				lOn++
			}
		}
		if eOn > 0 && lOn > 0 || eOn+lOn > 2 {
			t.Fatalf("at %s h0 runs %d VMs of E and %d of L", d2.clk.Now().Format(time.TimeOnly), eOn, lOn)
		}
		ge, _ := d2.GetLease(ctx, admin, e.ID)
		if eOn > 0 && d2.clk.Now().After(planned.Add(5*time.Second)) {
			hosts, _ := d2.ListHosts(ctx, admin)
			if ge.State != "suspending" || hosts[0].UsedCPU != 2 {
				t.Fatalf("E's VMs still on h0 after its suspension was planned to end: E is %s, h0 has %v cores used", ge.State, hosts[0].UsedCPU)
			}
			sawLate = true
		}
		if lOn == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("L's VMs never started: E is %s", ge.State)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sawLate {
		t.Fatal("E's suspension was not late after the restart: the test proves nothing")
	}
	ge, _ := d2.GetLease(ctx, admin, e.ID)
	gl, _ := d2.GetLease(ctx, admin, l.ID)
	for _, x := range []api.Lease{ge, gl} {
		if len(events(x, "operation-late")) == 0 {
			t.Errorf("lease %d's history lacks operation-late: %s", x.ID, states(x))
		}
	}
	if !gl.Start.After(planned.Add(50 * time.Second)) {
		t.Errorf("L started at %s, want about 60 s after %s", gl.Start.Format(time.TimeOnly), planned.Format(time.TimeOnly))
	}
	if n := metric(t, d2, "bora_capacity_breaches_total"); n != 0 {
		t.Errorf("%v capacity breaches", n)
	}
	if n := metric(t, d2, "bora_operations_late_total"); n != 1 {
		t.Errorf("%v late operations, want 1", n)
	}
	if !strings.Contains(states(ge), "suspending") {
		t.Errorf("E went %s", states(ge))
	}
}

// sleepUntil waits until d's clock reads at least at.
func sleepUntil(t *testing.T, d *running, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for d.clk.Now().Before(at) {
		if time.Now().After(deadline) {
			t.Fatalf("the clock never reached %s", at)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestAwaitLate: a start on h0 waits while another lease's late
// shutdown is on h0, and goes on once it is over; a late suspension on h1
// only, a suspension on h0 that is not late, and a late start on h0 hold
// nothing; a clean-up on h0, late or not, holds it; a wait longer than
// the operation timeout fails.
func TestAwaitLate(t *testing.T) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	e := &executor{d: &Daemon{log: logrus.NewEntry(lg)}, ctx: context.Background(), flights: map[scheduler.LeaseID]*flight{}}
	lim := opLimits{timeout: time.Minute}
	fly := func(id scheduler.LeaseID, k scheduler.ActionOp, host string, late bool) {
		e.mu.Lock()
		e.takeOffLocked(op{kind: k, lease: id, vms: []drivers.VM{{Lease: id, Host: host}}})
		e.mu.Unlock()
		if late {
			e.markLate(id, time.Minute)
		}
	}
	fly(2, scheduler.ActSuspend, "h1", true)
	fly(3, scheduler.ActSuspend, "h0", false)
	fly(4, scheduler.ActStart, "h0", true)
	start := op{kind: scheduler.ActStart, lease: 1, vms: []drivers.VM{{Lease: 1, Host: "h0"}}}
	if err := e.awaitLate(start, lim); err != nil {
		t.Fatalf("nothing late leaves h0: %v", err)
	}
	fly(5, scheduler.ActShutdown, "h0", true)
	done := make(chan error, 1)
	go func() { done <- e.awaitLate(start, lim) }()
	select {
	case err := <-done:
		t.Fatalf("returned while lease 5's late shutdown is on h0: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	e.mu.Lock()
	e.landLocked(5)
	e.mu.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("after the shutdown: %v", err)
	}
	if err := e.awaitLate(op{kind: scheduler.ActSuspend, lease: 1, vms: start.vms}, lim); err != nil {
		t.Fatalf("a suspension never waits: %v", err)
	}
	fly(6, scheduler.ActDone, "h0", false)
	if err := e.awaitLate(start, opLimits{timeout: 10 * time.Millisecond}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after the timeout: %v", err)
	}
}
