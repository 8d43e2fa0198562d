package opennebula

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

// The tests below check that the driver judges a migration or a resume
// from what real oned keeps: the state reached and the history record,
// never PREV_LCM_STATE (oned sets it to LCM_STATE before every save, as
// the stand-in does).

// timed runs op and returns how long it took.
func timed(t *testing.T, what string, op func() error) time.Duration {
	t.Helper()
	start := time.Now()
	if err := op(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return time.Since(start)
}

// suspendedOn gives a lease of one VM started on node1 and suspended
// there; the calls so far are forgotten.
func suspendedOn(e *env, d *Driver, lease uint64) ([]drivers.VM, int) {
	e.t.Helper()
	vms, ids := e.running(d, lease, "node1", 1)
	if err := d.Suspend(context.Background(), vms); err != nil {
		e.t.Fatal(err)
	}
	e.calls()
	return vms, ids[0]
}

// TestOperationsFinishWhenAPollMissesTheWork: the disk copy and the live
// migration take 1 ms, and the driver looks again 10 ms after a call at
// the soonest, so no poll sees PROLOG_MIGRATE_SUSPEND or MIGRATE. Migrate,
// Resume (with its migration) and LiveMigrate must still finish within a
// few polls, not at op_timeout (2 s): the first look already shows the
// VM on node2 with the record's prolog ended (PETIME) or running there
// (RSTIME) and node1's record closed (ETIME).
func TestOperationsFinishWhenAPollMissesTheWork(t *testing.T) {
	e := newEnv(t)
	e.cfg.OpTimeout = 2 * time.Second
	d := e.driver()
	fast := onetest.DefaultDelays()
	fast.Prolog, fast.Migrate = time.Millisecond, time.Millisecond
	e.one.SetDelays(fast)
	ctx := context.Background()
	const prompt = time.Second // half the timeout; 10-20 ms expected

	vms, id := suspendedOn(e, d, 1)
	vms[0].Host = "node2"
	if took := timed(t, "Migrate", func() error { return d.Migrate(ctx, vms, []string{"node1"}) }); took > prompt {
		t.Errorf("Migrate took %v, want under %v", took, prompt)
	}
	e.wantCalls("one.vm.migrate(0, 1, false, false, -1, 0)")
	if h := e.one.VMHost(id); h != "node2" {
		t.Errorf("saved on %q, want node2", h)
	}

	vms, id = suspendedOn(e, d, 2)
	vms[0].Host = "node2"
	if took := timed(t, "Resume", func() error { return d.Resume(ctx, vms) }); took > prompt {
		t.Errorf("Resume took %v, want under %v", took, prompt)
	}
	e.wantCalls("one.vm.migrate(1, 1, false, false, -1, 0)", actionCall("resume", id))

	vms, ids := e.running(d, 3, "node1", 1)
	e.calls()
	if took := timed(t, "LiveMigrate", func() error { return d.LiveMigrate(ctx, vms, []string{"node2"}) }); took > prompt {
		t.Errorf("LiveMigrate took %v, want under %v", took, prompt)
	}
	e.wantCalls("one.vm.migrate(2, 1, true, false, -1, 0)")
	if h := e.one.VMHost(ids[0]); h != "node2" {
		t.Errorf("running on %q, want node2", h)
	}
}

// TestOperationsWaitForOnedToStartTheWork: oned answers a migrate or
// resume call as soon as it has queued it, with the new history record
// already there; its life-cycle manager starts the work 150 ms later
// (Dispatch). Meanwhile the VM shows its old state with the new host. The
// driver must not take that for the end: each operation returns only
// once the stand-in went through the work (its trail), 150 ms or more
// after the call.
func TestOperationsWaitForOnedToStartTheWork(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	ctx := context.Background()
	vms, id := suspendedOn(e, d, 1)
	vms2, id2 := suspendedOn(e, d, 2)
	run, runIDs := e.running(d, 3, "node1", 1)
	e.calls()
	slow := onetest.DefaultDelays()
	slow.Prolog, slow.Migrate, slow.Dispatch = time.Millisecond, time.Millisecond, 150*time.Millisecond
	e.one.SetDelays(slow)
	const dispatch = 150 * time.Millisecond

	vms[0].Host = "node2"
	if took := timed(t, "Migrate", func() error { return d.Migrate(ctx, vms, []string{"node1"}) }); took < dispatch {
		t.Errorf("Migrate returned after %v, before oned started the copy (%v)", took, dispatch)
	}
	wantTrailEnd(t, e, id, "ACTIVE/PROLOG_MIGRATE_SUSPEND", "SUSPENDED")

	vms2[0].Host = "node2"
	if took := timed(t, "Resume", func() error { return d.Resume(ctx, vms2) }); took < 2*dispatch {
		t.Errorf("Resume returned after %v, before oned migrated and resumed (2 x %v)", took, dispatch)
	}
	wantTrailEnd(t, e, id2, "ACTIVE/PROLOG_MIGRATE_SUSPEND", "SUSPENDED", "ACTIVE/BOOT_SUSPENDED", "ACTIVE/RUNNING")

	if took := timed(t, "LiveMigrate", func() error { return d.LiveMigrate(ctx, run, []string{"node2"}) }); took < dispatch {
		t.Errorf("LiveMigrate returned after %v, before oned migrated (%v)", took, dispatch)
	}
	wantTrailEnd(t, e, runIDs[0], "ACTIVE/RUNNING", "ACTIVE/MIGRATE", "ACTIVE/RUNNING")
	e.wantCalls("one.vm.migrate(0, 1, false, false, -1, 0)", "one.vm.migrate(1, 1, false, false, -1, 0)",
		actionCall("resume", id2), "one.vm.migrate(2, 1, true, false, -1, 0)")
}

func wantTrailEnd(t *testing.T, e *env, id int, want ...string) {
	t.Helper()
	got := e.trail(id)
	if len(got) < len(want) || !eq(got[len(got)-len(want):], want) {
		t.Errorf("vm %d went through %s, want it to end with %s", id, strings.Join(got, " "), strings.Join(want, " "))
	}
}
