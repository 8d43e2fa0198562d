package opennebula

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

func adoptCall(id int, lease uint64, index int) string {
	tpl := fmt.Sprintf("BORA_LEASE_ID=%q\nBORA_VM_INDEX=%q\n", fmt.Sprint(lease), fmt.Sprint(index))
	return fmt.Sprintf("one.vm.update(%d, %s, 1)", id, strconv.Quote(tpl))
}

func actionCall(action string, id int) string {
	return fmt.Sprintf("one.vm.action(%q, %d)", action, id)
}

func TestStartDeploysAndFollowsTheBootSequence(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	a, b := e.vm(), e.vm()
	vms := e.leaseVMs(d, 1, "node2", a, b)
	if err := d.Start(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	// node2 is host 1; datastore -1 lets OpenNebula choose.
	e.wantCalls(adoptCall(a, 1, 0), adoptCall(b, 1, 1),
		"one.vm.deploy(0, 1, false, -1)", "one.vm.deploy(1, 1, false, -1)")
	for _, id := range []int{a, b} {
		e.wantTrail(id, "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING")
		if h := e.one.VMHost(id); h != "node2" {
			t.Errorf("vm %d on %q, want node2", id, h)
		}
	}
	if got := d.VMIDs(1); fmt.Sprint(got) != fmt.Sprint([]int{a, b}) {
		t.Errorf("VMIDs(1) = %v, want [%d %d]", got, a, b)
	}

	// Again: both run there already, nothing to call.
	if err := d.Start(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls()
}

func TestStartWithADatastore(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.Datastore = 0
	d := e.driverWith(cfg)
	id := e.vm()
	vms := e.leaseVMs(d, 3, "node1", id)
	e.calls()
	if err := d.Start(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls("one.vm.deploy(0, 0, false, 0)")
}

func TestSuspendAndResumeInPlace(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	id := ids[0]
	e.calls()

	if err := d.Suspend(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("suspend", id))
	if err := d.Suspend(context.Background(), vms); err != nil { // already saved
		t.Fatal(err)
	}
	e.wantCalls()

	if err := d.Migrate(context.Background(), vms, []string{"node1"}); err != nil { // nothing to move
		t.Fatal(err)
	}
	if err := d.Resume(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("resume", id))
	if err := d.Resume(context.Background(), vms); err != nil { // already running there
		t.Fatal(err)
	}
	e.wantCalls()
	e.wantTrail(id, "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SAVE_SUSPEND", "SUSPENDED", "ACTIVE/BOOT_SUSPENDED", "ACTIVE/RUNNING")
}

func TestResumeOnAnotherHostMigratesTheSavedVMFirst(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	id := ids[0]
	if err := d.Suspend(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.calls()
	vms[0].Host = "node2"
	if err := d.Resume(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	// Cold migration of the suspended VM to host 1, then resume there.
	e.wantCalls("one.vm.migrate(0, 1, false, false, -1, 0)", actionCall("resume", id))
	e.wantTrail(id, "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SAVE_SUSPEND", "SUSPENDED", "ACTIVE/PROLOG_MIGRATE_SUSPEND", "SUSPENDED",
		"ACTIVE/BOOT_SUSPENDED", "ACTIVE/RUNNING")
	// oned opens a record for the migration and another (a copy, on the
	// same host) for the resume.
	if got := e.one.Placements(id); !eq(got, []string{"node1", "node2", "node2"}) {
		t.Errorf("placements %v, want [node1 node2 node2]", got)
	}
}

func TestMigrateMovesTheSavedImageAndResumeOnlyResumes(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	id := ids[0]
	if err := d.Suspend(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.calls()
	vms[0].Host = "node2"
	if err := d.Migrate(context.Background(), vms, []string{"node1"}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls("one.vm.migrate(0, 1, false, false, -1, 0)")
	if err := d.Migrate(context.Background(), vms, []string{"node1"}); err != nil { // there already
		t.Fatal(err)
	}
	e.wantCalls()
	if err := d.Resume(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("resume", id))
	e.wantState(id, oca.Active, oca.Running)
	if h := e.one.VMHost(id); h != "node2" {
		t.Errorf("resumed on %q, want node2", h)
	}
}

func TestLiveMigrate(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	e.calls()
	if err := d.LiveMigrate(context.Background(), vms, []string{"node2"}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls("one.vm.migrate(0, 1, true, false, -1, 0)")
	e.wantTrail(ids[0], "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING", "ACTIVE/MIGRATE", "ACTIVE/RUNNING")
	if h := e.one.VMHost(ids[0]); h != "node2" {
		t.Errorf("on %q, want node2", h)
	}
	if err := d.LiveMigrate(context.Background(), vms, []string{"node2"}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls()
}

func TestColdMigrationIsSuspendMigrateResume(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.Migration = MigrationCold
	d := e.driverWith(cfg)
	vms, ids := e.running(d, 1, "node1", 1)
	e.calls()
	if err := d.LiveMigrate(context.Background(), vms, []string{"node2"}); !errors.Is(err, drivers.ErrUnsupported) {
		t.Fatalf("LiveMigrate with migration: cold: %v, want drivers.ErrUnsupported", err)
	}
	// What the daemon does instead.
	ctx := context.Background()
	if err := d.Suspend(ctx, vms); err != nil {
		t.Fatal(err)
	}
	vms[0].Host = "node2"
	if err := d.Migrate(ctx, vms, []string{"node1"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Resume(ctx, vms); err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	e.wantCalls(actionCall("suspend", id), "one.vm.migrate(0, 1, false, false, -1, 0)", actionCall("resume", id))
	e.wantTrail(id, "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SAVE_SUSPEND", "SUSPENDED", "ACTIVE/PROLOG_MIGRATE_SUSPEND", "SUSPENDED",
		"ACTIVE/BOOT_SUSPENDED", "ACTIVE/RUNNING")
}

func TestStopIsTerminateHardAndIdempotent(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	e.calls()
	if err := d.Stop(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("terminate-hard", ids[0]))
	e.wantTrail(ids[0], "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SHUTDOWN", "ACTIVE/EPILOG", "DONE")
	// Again, then Cleanup, then a lease never adopted: nothing to do.
	if err := d.Stop(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	if err := d.Cleanup(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	if err := d.Stop(context.Background(), []drivers.VM{{Lease: 99, Host: "node1"}}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls()
}

func TestStopOfSuspendedAndHeldVMs(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	vms, ids := e.running(d, 1, "node1", 1)
	if err := d.Suspend(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	held := e.vm()
	hvms := e.leaseVMs(d, 2, "node1", held)
	e.calls()
	if err := d.Stop(context.Background(), append(vms, hvms...)); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("terminate-hard", ids[0]), actionCall("terminate-hard", held))
	e.wantTrail(ids[0], "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SAVE_SUSPEND", "SUSPENDED", "ACTIVE/EPILOG", "DONE")
	e.wantTrail(held, "HOLD", "DONE")
}

func TestStopWaitsForABootToFinish(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	id := e.vm()
	vms := e.leaseVMs(d, 1, "node1", id)
	slow := onetest.DefaultDelays()
	slow.Prolog = 150 * time.Millisecond
	e.one.SetDelays(slow)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	if err := d.Start(ctx, vms); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start with a short context: %v, want a deadline error", err)
	}
	// oned refuses terminate in PROLOG: Stop waits for RUNNING.
	e.calls()
	if err := d.Stop(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(actionCall("terminate-hard", id))
	e.wantState(id, oca.Done, oca.LcmInit)
}

func TestShutdown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ignore bool
		calls  func(id int) []string
		trail  []string
	}{
		{"guest obeys", false,
			func(id int) []string { return []string{actionCall("terminate", id)} },
			[]string{"ACTIVE/SHUTDOWN", "ACTIVE/EPILOG", "DONE"}},
		{"guest ignores ACPI", true,
			func(id int) []string { return []string{actionCall("terminate", id), actionCall("terminate-hard", id)} },
			[]string{"ACTIVE/SHUTDOWN", "ACTIVE/EPILOG", "DONE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			d := e.driver()
			vms, ids := e.running(d, 1, "node1", 1)
			e.one.IgnoreACPI(ids[0], tc.ignore)
			e.calls()
			if err := d.Shutdown(context.Background(), vms, 150*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			e.wantCalls(tc.calls(ids[0])...)
			want := append([]string{"HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING"}, tc.trail...)
			e.wantTrail(ids[0], want...)
		})
	}
}

func TestFailuresCarryOpenNebulasText(t *testing.T) {
	const msg = "Error executing image transfer script: no space left on device"
	for _, tc := range []struct {
		name  string
		setup func(e *env, d *Driver) ([]drivers.VM, int) // returns the lease and its VM
		fail  func(e *env, id int)
		op    func(d *Driver, vms []drivers.VM) error
		state string // where OpenNebula left the VM
	}{
		{"deploy prolog",
			func(e *env, d *Driver) ([]drivers.VM, int) { id := e.vm(); return e.leaseVMs(d, 1, "node1", id), id },
			func(e *env, id int) { e.one.FailNext(id, onetest.OpProlog, msg) },
			func(d *Driver, vms []drivers.VM) error { return d.Start(context.Background(), vms) },
			"ACTIVE/PROLOG_FAILURE"},
		{"deploy boot",
			func(e *env, d *Driver) ([]drivers.VM, int) { id := e.vm(); return e.leaseVMs(d, 1, "node1", id), id },
			func(e *env, id int) { e.one.FailNext(id, onetest.OpBoot, msg) },
			func(d *Driver, vms []drivers.VM) error { return d.Start(context.Background(), vms) },
			"ACTIVE/BOOT_FAILURE"},
		{"suspend",
			func(e *env, d *Driver) ([]drivers.VM, int) {
				vms, ids := e.running(d, 1, "node1", 1)
				return vms, ids[0]
			},
			func(e *env, id int) { e.one.FailNext(id, onetest.OpSuspend, msg) },
			func(d *Driver, vms []drivers.VM) error { return d.Suspend(context.Background(), vms) },
			"ACTIVE/RUNNING"},
		{"resume",
			func(e *env, d *Driver) ([]drivers.VM, int) {
				vms, ids := e.running(d, 1, "node1", 1)
				if err := d.Suspend(context.Background(), vms); err != nil {
					e.t.Fatal(err)
				}
				return vms, ids[0]
			},
			func(e *env, id int) { e.one.FailNext(id, onetest.OpResume, msg) },
			func(d *Driver, vms []drivers.VM) error { return d.Resume(context.Background(), vms) },
			"SUSPENDED"},
		{"live migration",
			func(e *env, d *Driver) ([]drivers.VM, int) {
				vms, ids := e.running(d, 1, "node1", 1)
				return vms, ids[0]
			},
			func(e *env, id int) { e.one.FailNext(id, onetest.OpLiveMigrate, msg) },
			func(d *Driver, vms []drivers.VM) error {
				return d.LiveMigrate(context.Background(), vms, []string{"node2"})
			},
			"ACTIVE/RUNNING"},
		{"migration of a saved VM",
			func(e *env, d *Driver) ([]drivers.VM, int) {
				vms, ids := e.running(d, 1, "node1", 1)
				if err := d.Suspend(context.Background(), vms); err != nil {
					e.t.Fatal(err)
				}
				vms[0].Host = "node2"
				return vms, ids[0]
			},
			func(e *env, id int) { e.one.FailNext(id, onetest.OpMigrate, msg) },
			func(d *Driver, vms []drivers.VM) error { return d.Resume(context.Background(), vms) },
			"ACTIVE/PROLOG_MIGRATE_SUSPEND_FAILURE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			d := e.driver()
			vms, id := tc.setup(e, d)
			tc.fail(e, id)
			err := tc.op(d, vms)
			if !errors.Is(err, ErrOperationFailed) {
				t.Fatalf("error %v, want ErrOperationFailed", err)
			}
			if !strings.Contains(err.Error(), msg) {
				t.Errorf("error %q does not carry OpenNebula's text %q", err, msg)
			}
			if tr := e.trail(id); tr[len(tr)-1] != tc.state {
				t.Errorf("VM ended in %s, want %s (trail %v)", tr[len(tr)-1], tc.state, tr)
			}
		})
	}
}

func TestRefusedCallsCarryOnedsAnswer(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	id := e.vm()
	vms := e.leaseVMs(d, 1, "node1", id)
	e.one.RejectNext("one.vm.deploy", oca.OneActionError, "Cannot dispatch VM: host node1 is full")
	err := d.Start(context.Background(), vms)
	if !errors.Is(err, oca.ErrAction) {
		t.Fatalf("error %v, want oca.ErrAction", err)
	}
	want := "OpenNebula error [ACTION]: [one.vm.deploy] Cannot dispatch VM: host node1 is full"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if !strings.Contains(err.Error(), "lease 1 vm 0 (opennebula vm 0) on host node1") {
		t.Errorf("error %q does not say which VM", err)
	}
	// The VM is still on HOLD: a retry deploys it.
	if err := d.Start(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
}

func TestWrongStatesAndNames(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	held := e.leaseVMs(d, 1, "node1", e.vm())
	run, _ := e.running(d, 2, "node1", 1)
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"resume of a VM never started", drivers.ErrNotSaved,
			func() error { return d.Resume(context.Background(), held) }},
		{"migrate of a running VM", drivers.ErrNotSaved,
			func() error { return d.Migrate(context.Background(), run, []string{"node1"}) }},
		{"suspend of a VM on hold", ErrWrongState,
			func() error { return d.Suspend(context.Background(), held) }},
		{"start on another host of a running VM", ErrWrongState,
			func() error {
				return d.Start(context.Background(), []drivers.VM{{Lease: 2, Index: 0, Host: "node2"}})
			}},
		{"unknown host", drivers.ErrUnknownHost,
			func() error {
				return d.Start(context.Background(), []drivers.VM{{Lease: 1, Index: 0, Host: "node9"}})
			}},
		{"lease never adopted", ErrNotAdopted,
			func() error { return d.Start(context.Background(), []drivers.VM{{Lease: 7, Host: "node1"}}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
		})
	}
}

func TestConcurrentLeases(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	leases := make([][]drivers.VM, n)
	for i := range leases {
		leases[i] = e.leaseVMs(d, uint64(i+1), fmt.Sprintf("node%d", i%2+1), e.vm(), e.vm())
	}
	for i := range leases {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx := context.Background()
			if errs[i] = d.Start(ctx, leases[i]); errs[i] != nil {
				return
			}
			if errs[i] = d.Suspend(ctx, leases[i]); errs[i] != nil {
				return
			}
			errs[i] = d.Resume(ctx, leases[i])
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("lease %d: %v", i+1, err)
		}
	}
	list, err := d.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2*n {
		t.Errorf("List: %d VMs, want %d", len(list), 2*n)
	}
}

func TestOperationTimeout(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.OpTimeout = 60 * time.Millisecond
	d := e.driverWith(cfg)
	vms := e.leaseVMs(d, 1, "node1", e.vm())
	slow := onetest.DefaultDelays()
	slow.Boot = time.Second
	e.one.SetDelays(slow)
	err := d.Start(context.Background(), vms)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "ACTIVE/BOOT") {
		t.Errorf("error %v, want ErrTimeout naming the state ACTIVE/BOOT", err)
	}
}
