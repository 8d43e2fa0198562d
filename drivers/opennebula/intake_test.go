package opennebula

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
)

func TestPendingGroupsVMsIntoLeases(t *testing.T) {
	e := newEnv(t)
	e.one.AddUser("alice", "alice-pw")
	e.one.AddUser("bob", "bob-pw")
	mk := func(owner string, hold bool, lines ...string) int {
		id, err := e.one.AddVM(owner, "CPU=0.5\nMEMORY=512\n"+strings.Join(lines, "\n"), hold)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	job := `BORA_LEASE=[ ID="job", START="now", DURATION="01:30:00", CLASS="Migratable" ]`
	a1 := mk("alice", true, job)                                 // 0
	a2 := mk("alice", true, job)                                 // 1
	b1 := mk("bob", true, job)                                   // 2: same ID, other owner
	plain := mk("bob", true, `NAME="plain"`)                     // 3: no BORA_LEASE
	bad := mk("alice", true, `BORA_LEASE=[ START="tomorrow" ]`)  // 4
	text := mk("alice", true, `BORA_LEASE="ID=t, DURATION=600"`) // 5
	mk("alice", false, `BORA_LEASE=[ ID="queued" ]`)             // 6: PENDING, not taken
	mixed1 := mk("bob", true, `BORA_LEASE=[ ID="mix", DURATION="1:00:00" ]`)
	mixed2 := mk("bob", true, `BORA_LEASE=[ ID="mix", DURATION="2:00:00" ]`)

	d := e.driver()
	got, err := d.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]PendingLease{}
	for _, pl := range got {
		byKey[pl.Key] = pl
	}
	if len(got) != 6 {
		t.Errorf("%d pending leases, want 6: %+v", len(got), got)
	}

	// alice's job: 2 VMs of half a core and 512 MB each.
	if pl := byKey["1/job"]; pl.Err != nil || !eqInts(pl.VMIDs, a1, a2) || pl.User != "alice" ||
		pl.Request != (Request{Name: "job", VMs: 2, CPU: 0.5, Memory: 512, Start: "now",
			Duration: "1h30m0s", Class: "migratable"}) {
		t.Errorf("alice's job: %+v", pl)
	}
	if pl := byKey["2/job"]; pl.Err != nil || !eqInts(pl.VMIDs, b1) || pl.Request.VMs != 1 {
		t.Errorf("bob's job: %+v", pl)
	}
	// No attribute: one best-effort VM of the default duration.
	if pl := byKey["vm/3"]; pl.Err != nil || !eqInts(pl.VMIDs, plain) ||
		pl.Request != (Request{Name: "plain", VMs: 1, CPU: 0.5, Memory: 512, Start: "best-effort",
			Duration: "1h0m0s"}) {
		t.Errorf("plain VM: %+v", pl)
	}
	if pl := byKey["vm/4"]; !errors.Is(pl.Err, ErrBadLeaseAttr) || !strings.Contains(pl.Err.Error(), `START = "tomorrow"`) ||
		!eqInts(pl.VMIDs, bad) {
		t.Errorf("malformed VM: %+v", pl)
	}
	if pl := byKey["1/t"]; pl.Err != nil || !eqInts(pl.VMIDs, text) || pl.Request.Duration != "10m0s" {
		t.Errorf("single-value BORA_LEASE: %+v", pl)
	}
	if pl := byKey["2/mix"]; !errors.Is(pl.Err, ErrBadLeaseAttr) || !strings.Contains(pl.Err.Error(), "differs") ||
		!eqInts(pl.VMIDs, mixed1, mixed2) {
		t.Errorf("disagreeing group: %+v", pl)
	}

	// With TakePending the PENDING VM is a lease too.
	cfg := e.cfg
	cfg.TakePending = true
	d2 := e.driverWith(cfg)
	got, err = d2.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Errorf("with take_pending: %d leases, want 7", len(got))
	}
}

func eqInts(got []int, want ...int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestPendingWaitsForTheWholeGroup(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	attr := `BORA_LEASE=[ ID="trio", VMS="3" ]`
	e.vm(attr)
	e.vm(attr)
	if got, err := d.Pending(context.Background()); err != nil || len(got) != 0 {
		t.Fatalf("2 of 3 VMs: %+v, %v; want nothing yet", got, err)
	}
	e.vm(attr)
	got, err := d.Pending(context.Background())
	if err != nil || len(got) != 1 || len(got[0].VMIDs) != 3 || got[0].Err != nil {
		t.Fatalf("3 of 3 VMs: %+v, %v; want one lease of 3", got, err)
	}
}

func TestPendingAnchorsRelativeTimesAtCreation(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	before := time.Now().Add(-time.Second).Truncate(time.Second)
	e.vm(`BORA_LEASE=[ START="best-effort", DEADLINE="+02:00:00" ]`)
	e.vm(`BORA_LEASE=[ START="+00:10:00" ]`)
	e.vm(`BORA_LEASE=[ START="2031-05-01T08:00:00" ]`)
	after := time.Now().Add(time.Second)
	got, err := d.Pending(context.Background())
	if err != nil || len(got) != 3 {
		t.Fatalf("%+v, %v", got, err)
	}
	within := func(s string, off time.Duration) bool {
		ts, err := time.Parse(time.RFC3339, s)
		return err == nil && !ts.Before(before.Add(off)) && !ts.After(after.Add(off))
	}
	if r := got[0].Request; r.Start != "best-effort" || !within(r.Deadline, 2*time.Hour) {
		t.Errorf("deadline lease: %+v", r)
	}
	if r := got[1].Request; !within(r.Start, 10*time.Minute) {
		t.Errorf("advance reservation +10m: %+v", r)
	}
	if r := got[2].Request; r.Start != "2031-05-01T08:00:00Z" {
		t.Errorf("advance reservation at a time: %+v", r)
	}
}

func TestAdoptedAndRejectedVMsAreNotPendingAgain(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	a, b := e.vm(), e.vm()
	if err := d.Adopt(context.Background(), 5, []int{a}); err != nil {
		t.Fatal(err)
	}
	if err := d.Reject(context.Background(), []int{b}, "advance reservation rejected: no room at 10:00"); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Pending(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("pending after adopt and reject: %+v, %v", got, err)
	}
	if v, _ := e.one.UserTemplate(b).Get("BORA_ERROR"); !strings.Contains(v, "no room") {
		t.Errorf("BORA_ERROR = %q", v)
	}
	// Another driver (a restarted borad) skips them too: the marks are in
	// OpenNebula.
	if got, err := e.driver().Pending(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("pending after a restart: %+v, %v", got, err)
	}
}

func TestAdoptConflicts(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	a, b := e.vm(), e.vm()
	if err := d.Adopt(context.Background(), 1, []int{a}); err != nil {
		t.Fatal(err)
	}
	if err := d.Adopt(context.Background(), 1, []int{a}); err != nil {
		t.Errorf("adopting the same VM again: %v", err)
	}
	if err := d.Adopt(context.Background(), 2, []int{a}); !errors.Is(err, ErrAlreadyAdopted) {
		t.Errorf("adopting into another lease: %v, want ErrAlreadyAdopted", err)
	}
	if err := d.Adopt(context.Background(), 1, []int{b}); !errors.Is(err, ErrAlreadyAdopted) {
		t.Errorf("another VM as lease 1's VM 0: %v, want ErrAlreadyAdopted", err)
	}
	if err := d.Adopt(context.Background(), 3, []int{42}); err == nil || !strings.Contains(err.Error(), "Error getting virtual machine [42]") {
		t.Errorf("adopting a VM oned does not know: %v", err)
	}
}

func TestARestartedDriverFindsItsVMs(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	run, runIDs := e.running(d, 1, "node2", 2)
	saved, savedIDs := e.running(d, 2, "node1", 1)
	if err := d.Suspend(context.Background(), saved); err != nil {
		t.Fatal(err)
	}
	held := e.vm()
	e.leaseVMs(d, 3, "node1", held)
	e.vm() // not bora's
	_ = d.Close()

	d2 := e.driver()
	list, err := d2.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []drivers.VMStatus{
		{Lease: 1, Index: 0, Host: "node2", State: drivers.Running},
		{Lease: 1, Index: 1, Host: "node2", State: drivers.Running},
		{Lease: 2, Index: 0, Host: "node1", State: drivers.Saved},
	}
	if len(list) != len(want) {
		t.Fatalf("List after restart: %+v, want %+v", list, want)
	}
	for i, w := range want {
		g := list[i]
		g.Detail = ""
		if g != w {
			t.Errorf("List[%d] = %+v, want %+v", i, list[i], w)
		}
	}
	if !strings.Contains(list[2].Detail, "SUSPENDED") {
		t.Errorf("detail %q does not give OpenNebula's state", list[2].Detail)
	}
	if !eqInts(d2.VMIDs(1), runIDs...) || !eqInts(d2.VMIDs(2), savedIDs...) || !eqInts(d2.VMIDs(3), held) {
		t.Errorf("VMIDs after restart: %v %v %v", d2.VMIDs(1), d2.VMIDs(2), d2.VMIDs(3))
	}
	// The restarted driver acts on the recovered mapping.
	if err := d2.Resume(context.Background(), saved); err != nil {
		t.Fatal(err)
	}
	if err := d2.Stop(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for _, id := range runIDs {
		e.wantTrail(id, "HOLD", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
			"ACTIVE/SHUTDOWN", "ACTIVE/EPILOG", "DONE")
	}
}
