package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// TestOperationLate: best-effort lease E runs on h0 (one core) from 0; an
// advance reservation L of h0 from 3600 s for 30 min preempts it, so E is
// suspended from 3600 - 163.311 = 3436.689 s to 3600 s. At 3600 s E's
// suspension is still going on and is expected to last until 3660 s
// (OperationLate): E stays suspending until 3660 s, L starts at 3660 s
// and keeps its 30 min, to 5460 s (no other host to keep its start on),
// both say operation-late, and E resumes after L: from 5460 s it restores
// for 126.113 s and runs the 36000 - 3436.689 = 32563.311 s it had left,
// to 38149.424 s (printed .425: the overheads are rounded to the ns).
func TestOperationLate(t *testing.T) {
	s := smallCluster(t, 1)
	e, acts := s.Submit(t0, be("E", 10*time.Hour))
	log := render(nil, acts)
	l, acts := s.Submit(at(60), Request{Name: "L", Kind: AdvanceReservation, Start: time.Hour, VMs: 1, CPU: 100,
		Memory: 1024, Duration: 30 * time.Minute, Class: NonPreemptable, Origin: Local})
	log = render(log, acts)
	if l.State != Scheduled {
		t.Fatalf("L is %s (%s %s)", l.State, l.Reason, l.Detail)
	}
	if _, err := s.OperationLate(at(600), e.ID, at(700)); !errors.Is(err, ErrNoOperation) {
		t.Fatalf("OperationLate of a running lease: %v", err)
	}
	log = play(s, at(3599), log)
	if e.State != Suspending {
		t.Fatalf("E at 3599 s is %s", e.State)
	}
	end, err := s.OperationLate(at(3600), e.ID, at(3660))
	if err != nil || !end.Equal(at(3660)) {
		t.Fatalf("OperationLate = %v, %v; want 3660 s", end.Sub(t0), err)
	}
	if got := l.PlannedStart(); !got.Equal(at(3660)) || !l.plannedEnd().Equal(at(5460)) {
		t.Fatalf("L planned %v to %v, want 3660 s to 5460 s", got.Sub(t0), l.plannedEnd().Sub(t0))
	}
	for _, x := range []*Lease{e, l} {
		if !hasReason(x, ReasonOperationLate) {
			t.Errorf("lease %d's history %v lacks %s", x.ID, x.History, ReasonOperationLate)
		}
	}
	log = render(log, s.Advance(at(3600)))
	if e.State != Suspending || s.Table().Used(0, at(3630), at(3630))[0] != 100 {
		t.Fatalf("at 3630 s E is %s and h0 holds %v", e.State, s.Table().Used(0, at(3630), at(3630)))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	log = play(s, at(100000), log)
	want := []string{
		"+0.000 start 1 [0]", "+0.000 run 1 [0]",
		"+3436.689 suspend 1 [0]",
		"+3660.000 start 2 [0]", "+3660.000 run 2 [0]",
		"+5460.000 resume 1 [0]", "+5460.000 done 2 [0]",
		"+5586.113 run 1 [0]",
		"+38149.425 done 1 [0]",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}

// TestOperationLateStart: lease A (one VM, 1 h) on h0 with 10 s of
// enactment is prepared from 0 to 10 s, then runs to 3610 s. At 10 s its
// start is still going on and is expected to last until 25 s: the
// preparation ends at 25 s and the run, its own next phase on the same
// host, moves by 15 s (to 25-3625 s) instead of refusing the extension
// as a host held from then on.
func TestOperationLateStart(t *testing.T) {
	tb := slottable.New()
	if _, err := tb.AddHost("h0", slottable.Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Overheads.Enactment = 10 * time.Second
	s, err := New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, acts := s.Submit(t0, be("A", time.Hour))
	log := render(nil, append(acts, s.Advance(t0)...))
	if a.State != Preparing {
		t.Fatalf("A at 0 is %s", a.State)
	}
	end, err := s.OperationLate(at(10), a.ID, at(25))
	if err != nil || !end.Equal(at(25)) {
		t.Fatalf("OperationLate = %v, %v; want 25 s", end.Sub(t0), err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	log = play(s, at(10000), log)
	want := []string{"+0.000 start 1 [0]", "+25.000 run 1 [0]", "+3625.000 done 1 [0]"}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}
