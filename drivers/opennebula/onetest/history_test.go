package onetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// TestDocumentsKeepWhatOnedKeeps: every VM document shows PREV_STATE and
// PREV_LCM_STATE equal to STATE and LCM_STATE (oned's
// VirtualMachinePool::update copies them before each save), and the
// history records follow LifeCycleActions.cc / LifeCycleStates.cc:
// deploy, migrate and resume each open a record; a migrate's record has
// every time 0 until the life-cycle manager acts (Dispatch later); the
// source's record ends when the VM leaves it.
func TestDocumentsKeepWhatOnedKeeps(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	d := DefaultDelays()
	d.Dispatch = 100 * time.Millisecond
	s.SetDelays(d)
	id, _ := s.AddVM("oneadmin", "CPU=1\nMEMORY=512", true)
	info := func() *oca.VM {
		t.Helper()
		vm, err := ctl.VM(id).InfoContext(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if vm.PrevStateRaw != vm.StateRaw || vm.PrevLCMStateRaw != vm.LCMStateRaw {
			t.Errorf("%s: PREV_STATE %d PREV_LCM_STATE %d, want them equal to STATE %d LCM_STATE %d",
				vm.StateString(), vm.PrevStateRaw, vm.PrevLCMStateRaw, vm.StateRaw, vm.LCMStateRaw)
		}
		return vm
	}
	await := func(st oca.State, lcm oca.LCMState) {
		t.Helper()
		if err := s.Await(id, st, lcm, 2*time.Second); err != nil {
			t.Fatal(err)
		}
		info()
	}
	if err := ctl.VM(id).DeployContext(ctx, 0, false, -1); err != nil {
		t.Fatal(err)
	}
	await(oca.Active, oca.Running)
	if err := ctl.VM(id).ActionContext(ctx, "suspend"); err != nil {
		t.Fatal(err)
	}
	await(oca.Suspended, oca.LcmInit)

	if err := ctl.VM(id).MigrateContext(ctx, 1, false, false, -1, oca.MigrateSave); err != nil {
		t.Fatal(err)
	}
	// Answered, not started: still SUSPENDED, the new record untouched.
	vm := info()
	if h, _ := vm.LastHistory(); vm.StateString() != "SUSPENDED" || h.Hostname != "node2" || h.STime != 0 ||
		h.PETime != 0 || vm.HistoryRecords[0].ETime != 0 {
		t.Errorf("right after the call: %s, history %+v", vm.StateString(), vm.HistoryRecords)
	}
	await(oca.Active, oca.PrologMigrateSuspend)
	await(oca.Suspended, oca.LcmInit)
	vm = info()
	if h, _ := vm.LastHistory(); h.Action != oca.ActionMigrate || h.PSTime == 0 || h.PETime == 0 ||
		vm.HistoryRecords[0].ETime == 0 || vm.HistoryRecords[0].Action != oca.ActionSuspend {
		t.Errorf("after the migration: history %+v", vm.HistoryRecords)
	}

	if err := ctl.VM(id).ActionContext(ctx, "resume"); err != nil {
		t.Fatal(err)
	}
	await(oca.Active, oca.Running)
	vm = info()
	// seq host action: the deploy (ended by the suspend), the migration
	// (ended by the resume), the resume (running, its action cleared).
	var got []string
	for _, h := range vm.HistoryRecords {
		got = append(got, fmt.Sprintf("%d %s %d ended=%v", h.SEQ, h.Hostname, h.Action, h.ETime != 0))
	}
	want := []string{"0 node1 10 ended=true", "1 node2 1 ended=true", "2 node2 0 ended=false"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("history\n %q\nwant %q", got, want)
	}
}

// TestHostCapacityOnlyOnceMonitored: a host just created (INIT) reports
// TOTAL and MAX CPU and memory 0 until its first monitoring; OFFLINE
// zeroes them again (Host::offline), and a host enabled from there
// reports 0 until monitored again.
func TestHostCapacityOnlyOnceMonitored(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	id := s.AddHostUnmonitored("node3", 400, 4096)
	share := func() string {
		t.Helper()
		h, err := ctl.Host(id).InfoContext(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		sh := h.Share
		return fmt.Sprintf("%s %d/%d %d/%d", h.State(), sh.TotalCPU, sh.MaxCPU, sh.TotalMem, sh.MaxMem)
	}
	if got := share(); got != "INIT 0/0 0/0" {
		t.Errorf("new host: %s, want INIT with 0", got)
	}
	s.MonitorHost(id)
	if got := share(); got != "MONITORED 400/400 4194304/4194304" {
		t.Errorf("monitored: %s, want 4 cores and 4096 MB (in KB)", got)
	}
	if err := ctl.Host(id).StatusContext(ctx, oca.HostStatusOffline); err != nil {
		t.Fatal(err)
	}
	if got := share(); got != "OFFLINE 0/0 0/0" {
		t.Errorf("offline: %s, want 0", got)
	}
	if err := ctl.Host(id).StatusContext(ctx, oca.HostStatusEnabled); err != nil {
		t.Fatal(err)
	}
	if got := share(); got != "INIT 0/0 0/0" {
		t.Errorf("enabled again, not monitored yet: %s, want INIT with 0", got)
	}
	// Monitored again after Delays.Monitor (20 ms).
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		got := share()
		if got == "MONITORED 400/400 4194304/4194304" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitored again: %s", got)
		}
	}
}
