package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// node1 is the cluster of issue 11: one host node1 of 2 cores and
// 2048 MB, enactment and shutdown 10 s each, the default suspension
// model, and the slot table NOT checking capacity on its own (as in the
// daemon), so that only the scheduler keeps the host within capacity.
// Suspending two VMs of 1024 MB takes L^s = 2*0.005 + 2*1024/6.36 + 2.3 =
// 0.01 + 322.012578616 + 2.3 = 324.322578616 s.
func node1(t *testing.T) *Scheduler {
	t.Helper()
	tb := slottable.New()
	if _, err := tb.AddHost("node1", slottable.Resources{200, 2048}); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Overheads.Enactment, cfg.Overheads.Shutdown = 10*time.Second, 10*time.Second
	s, err := New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// twoCores is a lease of 2 VMs of 1 core and 1024 MB for d, ready at start
// (best-effort) or starting exactly then (advance reservation).
func twoCores(name string, kind Kind, start, d time.Duration) Request {
	class := Suspendable
	if kind == AdvanceReservation {
		class = NonPreemptable
	}
	return Request{Name: name, Kind: kind, Start: start, Duration: d, VMs: 2, CPU: 100, Memory: 1024,
		Class: class, Origin: External}
}

// TestAdminSuspendRefusedOverReservation is issue 11's scenario: X (2 VMs,
// 3 min, ready at 30 s) prepares over [30, 40), runs over [40, 220) and
// shuts down over [220, 230); the advance reservation Y (2 VMs, 5 min)
// prepares from 240 s. Suspending X at 160 s would hold node1 until
// 160 + 324.323 = 484.323 s, over Y's start at 240 s: the host would run
// 4 cores. The suspension is refused with ErrNoRoom naming Y, and nothing
// changes: X ends at 230 s, Y runs over [250, 550) and is done at 560 s.
// AdminMigrate, which suspends the same way, is refused the same way.
func TestAdminSuspendRefusedOverReservation(t *testing.T) {
	for _, migrate := range []bool{false, true} {
		s := node1(t)
		x, acts := s.Submit(t0, twoCores("X", BestEffort, 30*time.Second, 3*time.Minute))
		y, more := s.Submit(t0, twoCores("Y", AdvanceReservation, 4*time.Minute, 5*time.Minute))
		if y.State != Scheduled {
			t.Fatalf("Y: %s %s", y.State, y.Detail)
		}
		log := play(s, at(160), render(render(nil, acts), more))
		op := s.AdminSuspend
		if migrate {
			op = s.AdminMigrate
		}
		_, err := op(at(160), x.ID)
		if !errors.Is(err, ErrNoRoom) {
			t.Fatalf("migrate %v over Y's start: %v, want ErrNoRoom", migrate, err)
		}
		for _, want := range []string{"operation-does-not-fit", "host node1 until 2030-01-01 00:08:04",
			"lease 2 holds it from 2030-01-01 00:04:00"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err, want)
			}
		}
		if x.State != Running {
			t.Fatalf("X after the refusal: %s", x.State)
		}
		log = play(s, at(10000), log)
		want := []string{
			"+30.000 start 1 [0 0]", "+40.000 run 1 [0 0]",
			"+220.000 shutdown 1 [0 0]", "+230.000 done 1 [0 0]",
			"+240.000 start 2 [0 0]", "+250.000 run 2 [0 0]",
			"+550.000 shutdown 2 [0 0]", "+560.000 done 2 [0 0]",
		}
		if strings.Join(log, "\n") != strings.Join(want, "\n") {
			t.Fatalf("migrate %v: actions:\n%s\nwant:\n%s", migrate, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdminSuspendMovesQueued: as above but Y starts at 600 s, and a
// best-effort lease Z (2 VMs, 1 min) is planned after X over [230, 310).
// Suspending X at 160 s holds node1 until 484.323 s, which fits before Y
// but not with Z: Z gives way (history moved-for-admin-operation) and is
// planned again after the suspension: prepare from 484.323 s, run over
// [494.323, 554.323), done at 564.323 s, before Y's start at 600 s. The
// host is never over capacity. AdminMigrate suspends the same way.
func TestAdminSuspendMovesQueued(t *testing.T) {
	for _, migrate := range []bool{false, true} {
		s := node1(t)
		x, acts := s.Submit(t0, twoCores("X", BestEffort, 30*time.Second, 3*time.Minute))
		_, more := s.Submit(t0, twoCores("Y", AdvanceReservation, 10*time.Minute, 5*time.Minute))
		z, zacts := s.Submit(t0, twoCores("Z", BestEffort, 0, time.Minute))
		log := play(s, at(160), render(render(render(nil, acts), more), zacts))
		if got := z.PlannedStart(); !got.Equal(at(230)) {
			t.Fatalf("Z planned from %v s, want 230 s", got.Sub(t0).Seconds())
		}
		op := s.AdminSuspend
		if migrate {
			op = s.AdminMigrate
		}
		a, err := op(at(160), x.ID)
		if err != nil {
			t.Fatal(err)
		}
		log = play(s, at(570), render(log, a))
		want := []string{
			"+30.000 start 1 [0 0]", "+40.000 run 1 [0 0]",
			"+160.000 suspend 1 [0 0]",
			"+484.323 start 3 [0 0]", "+494.323 run 3 [0 0]",
			"+554.323 shutdown 3 [0 0]", "+564.323 done 3 [0 0]",
		}
		if strings.Join(log, "\n") != strings.Join(want, "\n") {
			t.Fatalf("migrate %v: actions:\n%s\nwant:\n%s", migrate, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
		moved := false
		for _, e := range z.History {
			moved = moved || (e.Reason == ReasonMovedForAdmin && e.At.Equal(at(160)))
		}
		if !moved {
			t.Errorf("migrate %v: Z's history %+v lacks %s at 160 s", migrate, z.History, ReasonMovedForAdmin)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
}
