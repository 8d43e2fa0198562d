package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/fake"
	"github.com/bora-sched/bora/scheduler"
)

// offline opens the fake cluster's state file while borad is down, as an
// operator (or a crash) would change the hosts behind its back.
func offline(t *testing.T, c config.Config, fn func(*fake.Driver)) {
	t.Helper()
	fc := fake.Config{Overheads: c.Scheduler.Overheads, StateFile: c.Daemon.Store + ".fake.json"}
	for _, h := range c.Hosts {
		fc.Hosts = append(fc.Hosts, fake.HostSpec{Name: h.Name, CPU: int64(h.CPU * 100), Memory: h.Memory})
	}
	d, err := fake.New(fc, clock.NewSim(simStart), nil)
	if err != nil {
		t.Fatal(err)
	}
	fn(d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReconcile: after a restart, a VM that should run but is gone is
// started again (and the lease says so), and a VM named like bora's that
// bora does not know is reported and left running.
func TestReconcile(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Daemon.Clock = "scaled"
	c.Daemon.Speed = 1 // the lease runs for hours: it is running when we look
	ctx := context.Background()
	d := start(t, c)
	l, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 2, Duration: "10h"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	var vms []drivers.VMStatus
	deadline := time.Now().Add(10 * time.Second)
	for len(vms) < 2 && time.Now().Before(deadline) {
		vms, _ = d.drv.List(ctx)
		time.Sleep(5 * time.Millisecond)
	}
	d.stop(t)

	offline(t, c, func(f *fake.Driver) {
		// VM 1 of the lease is gone; someone runs bora-99-0 by hand.
		if err := f.Stop(ctx, []drivers.VM{{Lease: l.ID, Index: 1, Host: vms[1].Host}}); err != nil {
			t.Fatal(err)
		}
		if err := f.Cleanup(ctx, []drivers.VM{{Lease: l.ID, Index: 1, Host: vms[1].Host}}); err != nil {
			t.Fatal(err)
		}
		f.AddForeignVM("h1", "bora-99-0")
	})

	d2 := start(t, c)
	got := waitFor(t, d2, l.ID, "revived", func(l api.Lease) bool { return len(l.EnactmentErrors) > 0 })
	if got.State != "running" || !strings.Contains(got.EnactmentErrors[0], "1 started again") {
		t.Fatalf("after restart: %s, %v", got.State, got.EnactmentErrors)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		list, _ := d2.drv.List(ctx)
		mine, foreign := 0, 0
		for _, v := range list {
			switch {
			case v.Lease == l.ID && v.State == drivers.Running:
				mine++
			case v.Lease == 99:
				foreign++
			}
		}
		if mine == 2 && foreign == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("VMs after reconciliation: %+v", list)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := d2.Stats(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.unknownVMs()) != 1 || st.Leases["running"] != 1 {
		t.Fatalf("unknown VMs %v, stats %+v", d2.unknownVMs(), st)
	}
}

// TestReloadKeepsLeases: a reload with another preemption policy keeps
// every lease and its plan; a reload with an invalid scheduler section is
// refused and changes nothing.
func TestReloadKeepsLeases(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Daemon.Clock = "scaled"
	d := start(t, c)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 2, Duration: "10h"})
	if err != nil {
		t.Fatal(err)
	}
	next := c
	next.Scheduler.Backfilling = "aggressive"
	d.Reload(next)
	bad := c
	bad.Scheduler.Overheads.SuspendRate = -1
	d.Reload(bad)
	got, err := d.GetLease(ctx, alice, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != l.State && got.State != "running" && got.State != "preparing" {
		t.Fatalf("lease after reloads: %s", got.State)
	}
	v, _ := d.call(ctx, func(*tx) (any, error) { return d.sched.Config(), nil })
	cfg := v.(scheduler.Config)
	// The first reload took (aggressive backfilling), the second did not
	// (its suspend rate was refused).
	if cfg.Backfilling != "aggressive" || cfg.Overheads.SuspendRate != c.Scheduler.Overheads.SuspendRate {
		t.Fatalf("scheduler config after reloads: %+v", cfg)
	}
}

// TestForgetOldLeases: leases over for longer than the retention leave
// the scheduler and the store; the others stay.
func TestForgetOldLeases(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	d := start(t, c)
	ctx := context.Background()
	old, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, old.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	live, _ := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "100h", Start: "+50h"})
	// The simulated clock jumps to the reservation: old ended 50 h ago.
	waitFor(t, d, live.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	n, err := d.forget(time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("forgot %d: %v", n, err)
	}
	if _, err := d.GetLease(ctx, alice, old.ID); err == nil {
		t.Fatal("the old lease is still shown")
	}
	if _, err := d.GetLease(ctx, alice, live.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := d.store.Lease(old.ID); err == nil {
		t.Fatal("the old lease is still in the store")
	}
}
