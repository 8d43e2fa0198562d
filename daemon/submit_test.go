package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers/opennebula"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
	"github.com/bora-sched/bora/scheduler"
)

// startHooked is start with hook applied to the daemon before its loop
// runs (to give it a lease source or an admitter).
func startHooked(t *testing.T, c config.Config, hook func(*Daemon)) *running {
	t.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: c, Log: lg, SimQuiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hook(d)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- d.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stubSource is a hand-written lease source: it lists nothing (the tests
// hand pending leases to take) and records what it is told.
type stubSource struct {
	mu       sync.Mutex
	adopted  map[uint64][]int
	rejected map[int]string
}

func newStubSource() *stubSource {
	return &stubSource{adopted: map[uint64][]int{}, rejected: map[int]string{}}
}

func (s *stubSource) Pending(context.Context) ([]opennebula.PendingLease, error) { return nil, nil }

func (s *stubSource) Adopt(_ context.Context, lease uint64, vms []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adopted[lease] = slices.Clone(vms)
	return nil
}

func (s *stubSource) Reject(_ context.Context, vms []int, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range vms {
		s.rejected[id] = reason
	}
	return nil
}

func (s *stubSource) adoption(lease uint64) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.adopted[lease]
}

func (s *stubSource) rejection(vm int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected[vm]
}

// waitUntil polls cond (real time) until it holds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never %s", what)
		}
	}
}

func leases(t *testing.T, d *running) []api.Lease {
	t.Helper()
	ls, err := d.ListLeases(context.Background(), admin, api.LeaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestIntakeRunsTheEnergyHook: under GESP both idle hosts go off; an
// immediate local lease of two VMs taken from the lease source has them
// switched on (local need 2 - on 0 - booting 0 = 2) exactly as the same
// lease from the API does (TestEnergyImmediateWaitsForBoot): accepted,
// it waits for the boot and starts two minutes after its submission;
// the source is told to adopt the two VMs (7 and 8) into it. Before the
// intake ran the hook, nothing switched a host on: rejected, no-capacity.
func TestIntakeRunsTheEnergyHook(t *testing.T) {
	src := newStubSource()
	d := startHooked(t, energyConfig(t.TempDir(), 2), func(d *Daemon) { d.src = src })
	waitHosts(t, d, "off", allPower("off"))
	d.take(context.Background(), opennebula.PendingLease{Key: "5/job", User: "carol", VMIDs: []int{7, 8},
		Request: opennebula.Request{Name: "job", VMs: 2, CPU: 1, Memory: 512, Start: "now", Duration: "30m0s"}},
		d.calls.polls.Add(1))
	ls := leases(t, d)
	if len(ls) != 1 || ls[0].State != "scheduled" || ls[0].Kind != "immediate" || ls[0].User != "carol" {
		t.Fatalf("leases %+v: want carol's immediate lease, scheduled", ls)
	}
	l, _ := d.GetLease(context.Background(), admin, ls[0].ID)
	if len(events(l, "waits-for-boot")) != 1 {
		t.Errorf("history %s: want a waits-for-boot event", states(l))
	}
	l = waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" || l.State == "done" })
	if l.Start == nil || !l.Start.Equal(l.Submitted.Add(2*time.Minute)) {
		t.Errorf("started at %v, want 2m after its submission at %v", l.Start, l.Submitted)
	}
	if got := src.adoption(l.ID); !slices.Equal(got, []int{7, 8}) {
		t.Errorf("source told to adopt %v into lease %d, want [7 8]", got, l.ID)
	}
}

// quota is a hand-written admitter: external requests for more than max
// VMs are refused.
type quota struct{ max int }

func (q quota) admit(_ time.Time, req scheduler.Request) (bool, scheduler.Reason, string) {
	if req.VMs > q.max {
		return false, "over-quota", fmt.Sprintf("%d VMs, at most %d", req.VMs, q.max)
	}
	return true, "", ""
}

// TestAdmissionRefusesExternal: with an admitter allowing one VM, an
// external request for two (from a gateway's token, or from the lease
// source) is recorded rejected with the admitter's reason and detail,
// shown by lease show, and the source marks its VMs with them; a local
// request for two VMs is not asked about (scheduled), nor is an
// external one for one VM.
func TestAdmissionRefusesExternal(t *testing.T) {
	src := newStubSource()
	d := startHooked(t, testConfig(t.TempDir(), 2), func(d *Daemon) { d.src, d.admission = src, quota{max: 1} })
	ctx := context.Background()
	gateway := api.Caller{User: "gw", UID: 1002, External: true}
	two := api.LeaseRequest{Name: "x2", VMs: 2, Duration: "1h", Origin: "external"}
	l, err := d.CreateLease(ctx, gateway, two)
	if err != nil || l.State != "rejected" || l.Reason != "over-quota" || l.Detail != "2 VMs, at most 1" {
		t.Fatalf("external lease of 2 VMs: %+v, %v; want rejected, over-quota, \"2 VMs, at most 1\"", l, err)
	}
	if got, _ := d.GetLease(ctx, admin, l.ID); got.State != "rejected" || got.Reason != "over-quota" {
		t.Errorf("lease show: %+v", got)
	}
	one := two
	one.VMs = 1
	if l, err := d.CreateLease(ctx, gateway, one); err != nil || l.State == "rejected" {
		t.Errorf("external lease of 1 VM: %+v, %v; want admitted", l, err)
	}
	local := api.LeaseRequest{Name: "local", VMs: 2, Duration: "1h", Start: "+1h"}
	if l, err := d.CreateLease(ctx, alice, local); err != nil || l.State != "scheduled" {
		t.Errorf("local lease of 2 VMs: %+v, %v; want scheduled (no admission)", l, err)
	}
	d.take(ctx, opennebula.PendingLease{Key: "5/big", User: "carol", VMIDs: []int{3, 4},
		Request: opennebula.Request{Name: "big", VMs: 2, CPU: 1, Memory: 512, Start: "best-effort", Duration: "1h0m0s",
			Origin: "external"}}, d.calls.polls.Add(1))
	waitUntil(t, "marked", func() bool { return src.rejection(4) != "" })
	if got := src.rejection(3); got != "over-quota: 2 VMs, at most 1" {
		t.Errorf("VM 3 marked %q, want \"over-quota: 2 VMs, at most 1\"", got)
	}
	if n := len(leases(t, d)); n != 4 {
		t.Errorf("%d leases, want 4 (the source's refused one recorded)", n)
	}
}

// openNebula starts the oned stand-in with two hosts of 2 cores and
// 2048 MB, and user carol.
func openNebula(t *testing.T) (*onetest.Server, string) {
	t.Helper()
	one := onetest.New(onetest.Options{Delays: onetest.Delays{Prolog: 5 * time.Millisecond, Boot: 5 * time.Millisecond,
		Save: 5 * time.Millisecond, Restore: 5 * time.Millisecond, Shutdown: 5 * time.Millisecond}})
	srv := httptest.NewServer(one)
	t.Cleanup(srv.Close)
	t.Cleanup(one.Close)
	one.AddHost("one-a", 200, 2048)
	one.AddHost("one-b", 200, 2048)
	one.AddUser("carol", "pw")
	return one, srv.URL
}

func addVM(t *testing.T, one *onetest.Server, lease string) int {
	t.Helper()
	id, err := one.AddVM("carol", "CPU=1\nMEMORY=512\nBORA_LEASE=[ "+lease+" ]", true)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func userAttr(one *onetest.Server, vm int, key string) string {
	v, _ := one.UserTemplate(vm).Get(key)
	return v
}

// TestIntakeRejectedVMMarked: an external VM asking for 8 cores (the
// hosts have 2) is rejected by the scheduler; OpenNebula's VM is marked
// with the scheduler's reason and detail (BORA_ERROR), stays on HOLD and
// is not taken again; lease show has the rejected lease.
func TestIntakeRejectedVMMarked(t *testing.T) {
	one, url := openNebula(t)
	id, err := one.AddVM("carol", "CPU=8\nMEMORY=512\n"+`BORA_LEASE=[ ID="big", START="best-effort", DURATION="01:00:00", ORIGIN="external" ]`, true)
	if err != nil {
		t.Fatal(err)
	}
	d := startOpenNebula(t, url)
	waitUntil(t, "marked", func() bool { return userAttr(one, id, "BORA_ERROR") != "" })
	// 1 VM of 8 cores does not fit on hosts of 2 (scheduler/submit.go).
	const want = "larger-than-cluster: 1 VMs of 8 cores and 512 MB each never fit on this cluster"
	if got := userAttr(one, id, "BORA_ERROR"); got != want {
		t.Errorf("BORA_ERROR %q, want %q", got, want)
	}
	ls := leases(t, d)
	if len(ls) != 1 || ls[0].State != "rejected" || ls[0].Reason+": "+ls[0].Detail != want || ls[0].Origin != "external" {
		t.Fatalf("leases %+v: want one external lease, rejected (%s)", ls, want)
	}
	if st, _, _ := one.State(id); st != oca.Hold {
		t.Errorf("VM %d is %v, want HOLD", id, st)
	}
}

// TestIntakeCallsDoNotHoldTheLoop: oned answers one.vm.update (the
// adoption's and rejection's annotations) after 2 s. While the adoption
// of VM a waits: an API lease is created and answered, and VM b, added
// meanwhile, is taken as a lease of its own; neither waits for the call
// (before: the intake annotated in the loop, and everything waited).
// The ~100 polls during the wait do not take VM a again. Once the call
// is answered, VM a is adopted into its lease, and only then deployed.
func TestIntakeCallsDoNotHoldTheLoop(t *testing.T) {
	one, url := openNebula(t)
	one.SetCallDelay("one.vm.update", 2*time.Second)
	a := addVM(t, one, `ID="a", START="now", DURATION="01:00:00"`)
	d := startOpenNebula(t, url)
	waitUntil(t, "adopting VM a", func() bool { return one.Delayed("one.vm.update") == 1 })
	l, err := d.CreateLease(context.Background(), admin, api.LeaseRequest{Name: "api", VMs: 1, Duration: "1h", Start: "+1h"})
	if err != nil || l.State != "scheduled" {
		t.Fatalf("API lease: %+v, %v", l, err)
	}
	if one.Delayed("one.vm.update") == 0 || userAttr(one, a, "BORA_LEASE_ID") != "" {
		t.Fatal("the API lease was answered only after the adoption's call returned")
	}
	b := addVM(t, one, `ID="b", START="best-effort", DURATION="01:00:00"`)
	waitUntil(t, "VM b taken", func() bool { return len(leases(t, d)) == 3 })
	if userAttr(one, a, "BORA_LEASE_ID") != "" {
		t.Fatal("VM b was taken only after VM a's adoption returned")
	}
	if err := one.Await(a, oca.Active, oca.Running, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	ls := leases(t, d)
	if len(ls) != 3 {
		t.Fatalf("leases %+v: want 3 (a, the API's, b), none taken twice", ls)
	}
	if got := userAttr(one, a, "BORA_LEASE_ID"); got != strconv.FormatUint(ls[0].ID, 10) || ls[0].Name != "a" {
		t.Errorf("VM a adopted into lease %q, want %d (%+v)", got, ls[0].ID, ls[0])
	}
	var update, deploy = -1, -1
	for i, c := range one.Calls() {
		if len(c.Args) > 0 && c.Args[0] == int64(a) { // XML-RPC ints decode as int64
			switch {
			case c.Method == "one.vm.update" && update < 0:
				update = i
			case c.Method == "one.vm.deploy" && deploy < 0:
				deploy = i
			}
		}
	}
	if update < 0 || deploy < update {
		t.Errorf("VM a: update call #%d, deploy call #%d; want adopted before deployed:\n%v", update, deploy, one.CallStrings())
	}
	waitUntil(t, "VM b adopted", func() bool { return userAttr(one, b, "BORA_LEASE_ID") != "" })
}

// TestIntakeAdoptionAfterStop: borad stops while the adoption of VM a,
// committed with its lease, is still waiting for oned (the same as a
// crash between the commit and the call: the call is never answered).
// The VM stays on HOLD without BORA_LEASE_ID. The next start makes the
// call again before anything else, so the VM is adopted into the same
// lease and runs; the intake, which lists the VM again meanwhile, does
// not make a second lease of it.
func TestIntakeAdoptionAfterStop(t *testing.T) {
	one, url := openNebula(t)
	one.SetCallDelay("one.vm.update", time.Hour)
	a := addVM(t, one, `ID="a", START="now", DURATION="01:00:00"`)
	cfg := oneConfig(t, url)
	cfg.Daemon.ShutdownTimeout = 100 * time.Millisecond // the executor then gives up on the call
	d := start(t, cfg)
	waitUntil(t, "adopting VM a", func() bool { return one.Delayed("one.vm.update") == 1 })
	first := leases(t, d)
	if len(first) != 1 {
		t.Fatalf("leases %+v, want 1", first)
	}
	d.stop(t)
	if st, _, _ := one.State(a); st != oca.Hold || userAttr(one, a, "BORA_LEASE_ID") != "" {
		t.Fatalf("VM a after the stop: %v, BORA_LEASE_ID %q; want HOLD, none", st, userAttr(one, a, "BORA_LEASE_ID"))
	}
	one.SetCallDelay("one.vm.update", 0)
	d = start(t, cfg)
	if err := one.Await(a, oca.Active, oca.Running, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := userAttr(one, a, "BORA_LEASE_ID"); got != strconv.FormatUint(first[0].ID, 10) {
		t.Errorf("VM a adopted into lease %q, want %d", got, first[0].ID)
	}
	if ls := leases(t, d); len(ls) != 1 || ls[0].ID != first[0].ID || ls[0].State != "running" {
		t.Errorf("leases after the restart %+v: want lease %d alone, running", ls, first[0].ID)
	}
}

// TestIntakeAdoptionFails: oned refuses the adoption's one.vm.update
// once. The lease made of VM a is cancelled (its enactment errors say
// why) without anything done to the VM, which stays on HOLD; the next
// poll takes it again, into a second lease that is adopted and runs.
func TestIntakeAdoptionFails(t *testing.T) {
	one, url := openNebula(t)
	one.RejectNext("one.vm.update", oca.OneInternalError, "database is locked")
	a := addVM(t, one, `ID="a", START="now", DURATION="01:00:00"`)
	d := startOpenNebula(t, url)
	if err := one.Await(a, oca.Active, oca.Running, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	ls := leases(t, d)
	if len(ls) != 2 || ls[0].State != "cancelled" || ls[1].State != "running" {
		t.Fatalf("leases %+v: want the first cancelled, the second running", ls)
	}
	first, _ := d.GetLease(context.Background(), admin, ls[0].ID)
	if len(first.EnactmentErrors) != 1 || !strings.Contains(first.EnactmentErrors[0], "database is locked") {
		t.Errorf("first lease's errors %q: want the adoption's failure", first.EnactmentErrors)
	}
	if got := userAttr(one, a, "BORA_LEASE_ID"); got != strconv.FormatUint(ls[1].ID, 10) {
		t.Errorf("VM a adopted into lease %q, want %d", got, ls[1].ID)
	}
}
