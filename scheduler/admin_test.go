package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// twoHosts is a scheduler over two hosts of one core and 1024 MB, with
// the default overheads: suspending one 1024 MB VM takes L^s = t_p + t_s +
// delta = 0.005 + 1024/6.36 + 2.3 = 163.311 s, resuming it L^r = t_p + t_r
// = 0.005 + 1024/8.12 = 126.113 s, copying its image 1024/(1024/160.2) =
// 160.2 s.
func twoHosts(t *testing.T) *Scheduler { return smallCluster(t, 2) }

// smallCluster is a checked scheduler over n hosts h0.. of one core and
// 1024 MB, with the default overheads.
func smallCluster(t *testing.T, n int) *Scheduler {
	t.Helper()
	tb := slottable.New()
	for i := 0; i < n; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	s, err := New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func be(name string, d time.Duration) Request {
	return Request{Name: name, Kind: BestEffort, VMs: 1, CPU: 100, Memory: 1024, Duration: d,
		Class: Suspendable, Origin: External}
}

// play advances s through its events until until, and renders every
// action as "+SECONDS op lease hosts".
func play(s *Scheduler, until time.Time, acts []string) []string {
	for {
		next, ok := s.NextEvent()
		if !ok || next.After(until) {
			return acts
		}
		acts = render(acts, s.Advance(next))
	}
}

func render(out []string, acts []Action) []string {
	for _, a := range acts {
		out = append(out, fmt.Sprintf("+%.3f %s %d %v", a.At.Sub(t0).Seconds(), a.Op, a.Lease, a.Hosts))
	}
	return out
}

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// TestAdminSuspendResume: lease 1 runs on h0 from 0; suspended by an admin
// at 600 s it saves until 600 + 163.311 = 763.311 s and then stays
// suspended, out of the queue, however long; resumed at 3600 s it restores
// until 3726.113 s and runs its remaining 3000 s, to 6726.113 s.
func TestAdminSuspendResume(t *testing.T) {
	s := twoHosts(t)
	l, acts := s.Submit(t0, be("A", time.Hour))
	log := render(nil, acts)
	log = play(s, at(600), log)
	a, err := s.AdminSuspend(at(600), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, a)
	log = play(s, at(3600), log)
	if l.State != Suspended || l.Reason != ReasonAdminSuspend || s.QueueLen() != 0 {
		t.Fatalf("held lease: %s (%s), queue %d", l.State, l.Reason, s.QueueLen())
	}
	a, err = s.AdminResume(at(3600), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, a)
	log = play(s, at(100000), log)
	want := []string{
		"+0.000 start 1 [0]", "+0.000 run 1 [0]",
		"+600.000 suspend 1 [0]",
		"+3600.000 resume 1 [0]", "+3726.113 run 1 [0]",
		"+6726.113 done 1 [0]",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if l.State != Done {
		t.Fatalf("state %s", l.State)
	}
	if _, err := s.AdminResume(at(100000), l.ID); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("resume of a done lease: %v", err)
	}
}

// TestAdminMigrate: lease 1 runs on h0; migrated at 600 s it saves until
// 763.311 s, its image is copied to h1 until 923.511 s, restored there
// until 1049.625 s, and runs its remaining 3000 s on h1, to 4049.625 s.
func TestAdminMigrate(t *testing.T) {
	s := twoHosts(t)
	l, acts := s.Submit(t0, be("A", time.Hour))
	log := play(s, at(600), render(nil, acts))
	a, err := s.AdminMigrate(at(600), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	log = play(s, at(100000), render(log, a))
	want := []string{
		"+0.000 start 1 [0]", "+0.000 run 1 [0]",
		"+600.000 suspend 1 [0]",
		"+763.311 migrate 1 [1]", "+923.511 resume 1 [1]", "+1049.625 run 1 [1]",
		"+4049.625 done 1 [1]",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if _, err := s.AdminMigrate(at(100000), l.ID); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("migrating a done lease: %v", err)
	}
}

// TestFail: lease 1 runs on h0, lease 2 on h1, lease 3 waits for h0 at
// 3600 s. The driver fails lease 1 at 600 s: it is failed, the driver is
// told to stop and clean it up, and lease 3 starts on h0 at once.
func TestFail(t *testing.T) {
	s := twoHosts(t)
	var log []string
	var ids []LeaseID
	for _, n := range []string{"A", "B", "C"} {
		l, acts := s.Submit(t0, be(n, time.Hour))
		ids = append(ids, l.ID)
		log = render(log, acts)
	}
	log = play(s, at(600), log)
	a, err := s.Fail(at(600), ids[0], "boot failed: no bootable device")
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, a)
	got := strings.Join(log, "\n")
	for _, w := range []string{"+600.000 stop 1 [0]", "+600.000 done 1 [0]", "+600.000 start 3 [0]"} {
		if !strings.Contains(got, w) {
			t.Fatalf("no %q in:\n%s", w, got)
		}
	}
	l := s.Lease(ids[0])
	if l.State != Failed || l.Reason != ReasonEnactmentFailure || l.Detail != "boot failed: no bootable device" {
		t.Fatalf("lease 1: %s %s %q", l.State, l.Reason, l.Detail)
	}
	if len(s.table.ForLease(uint64(ids[0]))) != 0 {
		t.Fatal("a failed lease still holds reservations")
	}
	if _, err := s.Fail(at(700), ids[0], "again"); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("failing a failed lease: %v", err)
	}
	if _, err := s.Fail(at(700), 99, "x"); !errors.Is(err, ErrUnknownLease) {
		t.Fatalf("unknown lease: %v", err)
	}
}

// TestDisableHost: leases 1 and 2 run on h0 and h1 until 3600 s; lease 3
// is planned on h0 from 3600 s. Disabling h0 at 600 s moves lease 3's
// plan to h1 (from 3600 s, when lease 2 ends), leaves lease 1 running on
// h0, and nothing new ever goes to h0 until it is enabled again.
func TestDisableHost(t *testing.T) {
	s := twoHosts(t)
	var ids []LeaseID
	for _, n := range []string{"A", "B", "C"} {
		l, _ := s.Submit(t0, be(n, time.Hour))
		ids = append(ids, l.ID)
	}
	c := s.Lease(ids[2])
	if c.PlannedStart() != at(3600) || c.plan[0].hosts[0] != 0 {
		t.Fatalf("before: lease 3 planned at %v on %v", c.PlannedStart(), c.plan[0].hosts)
	}
	if _, err := s.SetHostEnabled(at(600), 0, false); err != nil {
		t.Fatal(err)
	}
	if c.PlannedStart() != at(3600) || c.plan[0].hosts[0] != 1 {
		t.Fatalf("after: lease 3 planned at %v on %v, want 3600 s on h1", c.PlannedStart().Sub(t0), c.plan[0].hosts)
	}
	if s.Lease(ids[0]).State != Running || s.HostEnabled(0) {
		t.Fatal("lease 1 should still run on the disabled h0")
	}
	d, _ := s.Submit(at(700), be("D", time.Hour))
	if d.PlannedStart() != at(7200) || d.plan[0].hosts[0] != 1 {
		t.Fatalf("lease 4 planned at %v on %v, want 7200 s on h1", d.PlannedStart().Sub(t0), d.plan[0].hosts)
	}
	if _, err := s.SetHostEnabled(at(800), 0, true); err != nil {
		t.Fatal(err)
	}
	// h0 is free from 3600 s again: leases 3 and 4 both start then, one on
	// each host.
	if d.PlannedStart() != at(3600) || c.PlannedStart() != at(3600) || d.plan[0].hosts[0] == c.plan[0].hosts[0] {
		t.Fatalf("re-enabled: leases 3 and 4 planned at %v on %v and %v on %v, want both at 3600 s on different hosts",
			c.PlannedStart().Sub(t0), c.plan[0].hosts, d.PlannedStart().Sub(t0), d.plan[0].hosts)
	}
	if _, err := s.SetHostEnabled(at(900), 5, false); err == nil {
		t.Fatal("unknown host accepted")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestForget: leases over before the cutoff are dropped; a live one and
// one that ended after the cutoff stay.
func TestForget(t *testing.T) {
	s := twoHosts(t)
	a, _ := s.Submit(t0, be("A", time.Hour))
	b, _ := s.Submit(t0, be("B", 3*time.Hour))
	c, _ := s.Submit(t0, be("C", 5*time.Hour))
	play(s, at(4*3600), nil) // A done at 1 h, B at 3 h, C runs
	gone := s.Forget(at(2 * 3600))
	if len(gone) != 1 || gone[0] != a.ID || s.Lease(a.ID) != nil || s.Lease(b.ID) == nil || s.Lease(c.ID) == nil {
		t.Fatalf("forgot %v", gone)
	}
	if n := len(s.Leases()); n != 2 {
		t.Fatalf("%d leases left", n)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
