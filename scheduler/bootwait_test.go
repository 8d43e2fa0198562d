package scheduler

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// bootCluster is a checked scheduler over four hosts h0-h3 of one core
// and 1024 MB, booting in 120 s and shutting down in 60 s, immediate
// leases waiting up to wait for a boot; h2 and h3 are off from 0 (an
// energy policy switched them off).
func bootCluster(t *testing.T, wait time.Duration) *Scheduler {
	t.Helper()
	tb := slottable.New()
	for i := 0; i < 4; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	cfg.ImmediateBootWait = wait
	s, err := New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.SetPowerTimes(2*time.Minute, time.Minute)
	for _, h := range []slottable.HostID{2, 3} {
		if err := s.MarkOff(t0, h); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func immediate3(name string, vms int) Request {
	return Request{Name: name, Kind: Immediate, VMs: vms, CPU: 100, Memory: 1024, Duration: time.Hour,
		Class: NonPreemptable, Origin: Local}
}

// guests submits two cancellable external leases of one VM for 10 h at 0:
// they run on h0 and h1 (leases 1 and 2).
func guests(t *testing.T, s *Scheduler) []*Lease {
	t.Helper()
	var out []*Lease
	for _, n := range []string{"g1", "g2"} {
		r := be(n, 10*time.Hour)
		r.Class = Cancellable
		l, _ := s.Submit(t0, r)
		out = append(out, l)
	}
	play(s, at(1), nil)
	for _, l := range out {
		if l.State != Running {
			t.Fatalf("guest %s: %s, want running", l.Req.Name, l.State)
		}
	}
	return out
}

func sortedHosts(l *Lease) []slottable.HostID {
	if len(l.plan) == 0 {
		return nil
	}
	h := slices.Clone(l.plan[0].hosts)
	slices.Sort(h)
	return h
}

// TestImmediateWaitsForBootAndPreempts: h0 and h1 run a guest each, h2
// and h3 are off. At 600 s the energy policy switches one host on for
// an immediate local lease of three VMs (GESP: local need 3 - on 2 -
// booting 0 = 1): h2 boots over [600, 720). The hosts on cannot hold
// three VMs even preempting both guests (before the change: rejected,
// no-capacity "even preempting"). With the boot the lease waits for, it
// is served by h2 (switched on) and by preempting both guests (the rest
// by preemption): it starts at 720 s on h0, h1, h2, its history noting
// the wait.
func TestImmediateWaitsForBootAndPreempts(t *testing.T) {
	s := bootCluster(t, DefaultImmediateBootWait)
	g := guests(t, s)
	if ready, err := s.PowerOn(at(600), 2, at(600)); err != nil || !ready.Equal(at(720)) {
		t.Fatalf("PowerOn(h2) = %v, %v; want on at 720 s", ready.Sub(t0), err)
	}
	l, _ := s.Submit(at(600), immediate3("local", 3))
	if l.State != Scheduled {
		t.Fatalf("immediate lease: %s (%s: %s), want scheduled", l.State, l.Reason, l.Detail)
	}
	if got := l.PlannedStart(); !got.Equal(at(720)) {
		t.Errorf("planned start %v s, want 720 s (the end of h2's boot)", got.Sub(t0).Seconds())
	}
	if h := sortedHosts(l); !reflect.DeepEqual(h, []slottable.HostID{0, 1, 2}) {
		t.Errorf("hosts %v, want [0 1 2]", h)
	}
	if !hasEvent(l, ReasonWaitsForBoot, "starts at 2030-01-01 00:12:00 UTC") {
		t.Errorf("history %+v: want a waits-for-boot event", l.History)
	}
	log := play(s, at(720), nil)
	for _, x := range g {
		if x.State != Cancelled || x.Reason != ReasonPreempted {
			t.Errorf("guest %s: %s (%s), want cancelled (preempted)", x.Req.Name, x.State, x.Reason)
		}
	}
	if !slices.Contains(log, "+720.000 start 3 [0 1 2]") && !slices.Contains(log, "+720.000 start 3 [2 0 1]") {
		t.Errorf("actions %v: want lease 3 started at 720 s", log)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestImmediateWaitsForBootNoPreemption: h0 runs a local lease, h1 is
// free, h2 boots over [600, 720) (switched on at 600 s). An immediate
// local lease of two VMs does not fit at 600 s, and nothing on h0 can be
// preempted (before the change: rejected). It starts at 720 s on h1 and
// h2, preempting nothing.
func TestImmediateWaitsForBootNoPreemption(t *testing.T) {
	s := bootCluster(t, DefaultImmediateBootWait)
	busy, _ := s.Submit(t0, immediate3("busy", 1))
	if busy.State != Running {
		t.Fatalf("first local lease: %s", busy.State)
	}
	if _, err := s.PowerOn(at(600), 2, at(600)); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Submit(at(600), immediate3("local", 2))
	if l.State != Scheduled || !l.PlannedStart().Equal(at(720)) {
		t.Fatalf("immediate lease: %s (%s: %s) from %v s; want scheduled from 720 s", l.State, l.Reason, l.Detail, l.PlannedStart().Sub(t0).Seconds())
	}
	if h := sortedHosts(l); !reflect.DeepEqual(h, []slottable.HostID{1, 2}) {
		t.Errorf("hosts %v, want [1 2]", h)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestImmediateBootWaitTooLong: as TestImmediateWaitsForBootAndPreempts
// with a tolerance of 60 s: the boot ends 120 s after the request, so
// the lease is rejected, saying why (boot-wait-too-long), and the guests
// run on. With no host switched on, it is rejected as without energy
// management (no-capacity, even preempting).
func TestImmediateBootWaitTooLong(t *testing.T) {
	s := bootCluster(t, time.Minute)
	g := guests(t, s)
	if _, err := s.PowerOn(at(600), 2, at(600)); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Submit(at(600), immediate3("local", 3))
	if l.State != Rejected || l.Reason != ReasonBootWaitTooLong ||
		!strings.Contains(l.Detail, "a wait of 2m0s, over scheduler.immediate_boot_wait (1m0s)") {
		t.Errorf("immediate lease: %s (%s: %s), want rejected, boot-wait-too-long", l.State, l.Reason, l.Detail)
	}
	for _, x := range g {
		if x.State != Running {
			t.Errorf("guest %s: %s, want running", x.Req.Name, x.State)
		}
	}

	s = bootCluster(t, DefaultImmediateBootWait)
	guests(t, s)
	l, _ = s.Submit(at(600), immediate3("local", 3))
	if l.State != Rejected || l.Reason != ReasonNoCapacity || !strings.Contains(l.Detail, "even preempting") {
		t.Errorf("with no boot planned: %s (%s: %s), want rejected, no-capacity even preempting", l.State, l.Reason, l.Detail)
	}
}

func hasEvent(l *Lease, r Reason, detail string) bool {
	for _, e := range l.History {
		if e.Reason == r && strings.Contains(e.Detail, detail) {
			return true
		}
	}
	return false
}
