package scheduler

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// hasReason reports whether l's history holds reason r.
func hasReason(l *Lease, r Reason) bool {
	for _, e := range l.History {
		if e.Reason == r {
			return true
		}
	}
	return false
}

// bootingForB: h1 is switched off at 0; best-effort lease B, submitted at
// 0, needs both hosts and waits; h1 is switched on at 600 s, to be on at
// 720 s. It returns the scheduler advanced to 600 s, B, and the actions
// so far.
func bootingForB(t *testing.T) (*Scheduler, *Lease, []string) {
	t.Helper()
	s := powered(t)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	req := be("B", time.Hour)
	req.VMs = 2
	l, _ := s.Submit(t0, req)
	if _, err := s.PowerOn(at(600), 1, at(600)); err != nil {
		t.Fatal(err)
	}
	s.PlanQueue()
	return s, l, render(nil, s.Advance(at(600)))
}

// TestDelayBoot: h1 is off and best-effort lease B needs both hosts.
// Switched on at 600 s, h1 is planned on at 720 s, where B is planned. At
// 720 s h1 has not finished booting: DelayBoot to 780 s moves B's start
// there (history host-boot-late) and nothing starts at 720 s. h1 reports
// on at 750 s (BootDone): B starts at 750 s on both hosts.
func TestDelayBoot(t *testing.T) {
	s, l, log := bootingForB(t)
	log = play(s, at(719.999), log)
	if len(l.plan) == 0 || !l.plan[0].start.Equal(at(720)) {
		t.Fatalf("before the delay B is planned %v, want at 720 s", l.plan)
	}
	on, err := s.DelayBoot(at(720), 1, at(780))
	if err != nil || !on.Equal(at(780)) {
		t.Fatalf("DelayBoot = %v, %v; want on at 780 s", on.Sub(t0), err)
	}
	if !hasReason(l, ReasonBootLate) {
		t.Errorf("B's history %v lacks %s", l.History, ReasonBootLate)
	}
	log = render(log, s.Advance(at(720)))
	if st := s.PowerState(1, at(760)); st != PowerBooting {
		t.Errorf("h1 at 760 s: %s, want booting", st)
	}
	if len(l.plan) == 0 || !l.plan[0].start.Equal(at(780)) {
		t.Fatalf("after the delay B is planned %v, want at 780 s", l.plan)
	}
	log = play(s, at(749), log)
	if err := s.BootDone(at(750), 1); err != nil {
		t.Fatal(err)
	}
	log = render(log, s.Advance(at(750)))
	want := []string{"+750.000 start 1 [0 1]", "+750.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestDelayBootKeepsFixed: h1 is switched on at 100 s for an advance
// reservation of both hosts at 3600 s (boot 3480-3600 s). Late at 3600 s,
// the boot cannot be extended over the reservation, which begins as
// planned (the daemon waits for the host before starting its VM).
func TestDelayBootKeepsFixed(t *testing.T) {
	s := powered(t)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PowerOn(at(100), 1, at(3600)); err != nil {
		t.Fatal(err)
	}
	ar, _ := s.Submit(at(100), local2("AR", time.Hour, time.Hour))
	if ar.State != Scheduled {
		t.Fatalf("AR %s, want scheduled", ar.State)
	}
	log := play(s, at(3599), nil)
	on, err := s.DelayBoot(at(3600), 1, at(3700))
	if err != nil || !on.Equal(at(3600)) {
		t.Fatalf("DelayBoot = %v, %v; want on at 3600 s (not extended)", on.Sub(t0), err)
	}
	log = render(log, s.Advance(at(3600)))
	want := []string{"+3600.000 start 1 [0 1]", "+3600.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if _, err := s.DelayBoot(at(3700), 0, at(3800)); !errors.Is(err, ErrPowerTransition) {
		t.Errorf("DelayBoot of a host on: %v, want ErrPowerTransition", err)
	}
}

// TestBootFailed: h1, switched on at 600 s to be on at 720 s where B is
// planned, fails to boot at 700 s: it is off and closed, B is queued with
// no plan. Switched on again at 800 s, it is on at 920 s, when B starts.
func TestBootFailed(t *testing.T) {
	s, l, log := bootingForB(t)
	if err := s.BootFailed(at(700), 1); err != nil {
		t.Fatal(err)
	}
	log = render(log, s.Advance(at(700)))
	if st := s.PowerState(1, at(700)); st != PowerOff || s.HostEnabled(1) {
		t.Errorf("h1 after the failure: %s, enabled %v; want off, closed", st, s.HostEnabled(1))
	}
	if len(l.plan) != 0 || l.State != Queued || !hasReason(l, ReasonBootFailed) {
		t.Errorf("B: %s, plan %v, history %v; want queued, unplanned, %s", l.State, l.plan, l.History, ReasonBootFailed)
	}
	log = play(s, at(799), log)
	if ready, err := s.PowerOn(at(800), 1, at(800)); err != nil || !ready.Equal(at(920)) {
		t.Fatalf("PowerOn = %v, %v; want on at 920 s", ready.Sub(t0), err)
	}
	s.PlanQueue()
	log = render(log, s.Advance(at(800)))
	log = play(s, at(920), log)
	want := []string{"+920.000 start 1 [0 1]", "+920.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestOffFailed: h1 switched off at 0 could not be (reported at 30 s): it
// is on, open, and B, waiting for both hosts, starts at 30 s.
func TestOffFailed(t *testing.T) {
	s := powered(t)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	req := be("B", time.Hour)
	req.VMs = 2
	s.Submit(t0, req)
	log := play(s, at(29), nil)
	if err := s.OffFailed(at(30), 1); err != nil {
		t.Fatal(err)
	}
	if st := s.PowerState(1, at(30)); st != PowerOn || !s.HostEnabled(1) {
		t.Errorf("h1: %s, enabled %v; want on, open", st, s.HostEnabled(1))
	}
	log = render(log, s.Advance(at(30)))
	want := []string{"+30.000 start 1 [0 1]", "+30.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestBootFailedMovesReservation: h1 is switched on at 100 s to boot for
// an advance reservation of one VM at 3600 s, placed on h1 because a
// local lease held h0 until 7200 s. That lease is cancelled at 1000 s.
// h1 fails to boot at 3600 s: the reservation moves to h0 at the same
// start (history host-boot-failed) and starts there; h1 is off.
func TestBootFailedMovesReservation(t *testing.T) {
	s := powered(t)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	x, _ := s.Submit(t0, Request{Name: "X", Kind: Immediate, VMs: 1, CPU: 100, Memory: 1024, Duration: 2 * time.Hour,
		Class: NonPreemptable, Origin: Local})
	if _, err := s.PowerOn(at(100), 1, at(3600)); err != nil {
		t.Fatal(err)
	}
	req := local2("AR", time.Hour, 30*time.Minute)
	req.VMs = 1
	ar, _ := s.Submit(at(100), req)
	if ar.State != Scheduled || ar.plan[0].hosts[0] != 1 {
		t.Fatalf("AR %s on %v, want scheduled on h1", ar.State, ar.plan)
	}
	log := play(s, at(999), nil)
	acts, err := s.Cancel(at(1000), x.ID)
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, acts)
	log = play(s, at(3599), log)
	if err := s.BootFailed(at(3600), 1); err != nil {
		t.Fatal(err)
	}
	if !hasReason(ar, ReasonBootFailed) {
		t.Errorf("AR's history %v lacks %s", ar.History, ReasonBootFailed)
	}
	log = render(log, s.Advance(at(3600)))
	want := []string{"+1000.000 stop 1 [0]", "+3600.000 start 2 [0]", "+3600.000 run 2 [0]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if st := s.PowerState(1, at(3600)); st != PowerOff || s.HostEnabled(1) {
		t.Errorf("h1: %s, enabled %v; want off, closed", st, s.HostEnabled(1))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
