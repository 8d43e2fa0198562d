package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// saveAll is every lease of s in its saved form, and s's own state.
func saveAll(s *Scheduler) (SavedState, []SavedLease) {
	var out []SavedLease
	for _, l := range s.Leases() {
		sl, _ := s.Save(l.ID)
		out = append(out, sl)
	}
	return s.State(), out
}

// emptyLike is a table with s's hosts and no reservations.
func emptyLike(t *testing.T, s *Scheduler) *slottable.Table {
	t.Helper()
	tb := slottable.New()
	for _, h := range s.table.Hosts() {
		if _, err := tb.AddHost(h.Name, h.Capacity); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// shift moves a saved lease's plan, reservations and requested start by d.
func shift(sl *SavedLease, d time.Duration) {
	sl.Ready = sl.Ready.Add(d)
	sl.Req.Start += d
	for i := range sl.Plan {
		p := &sl.Plan[i]
		p.Start, p.End = p.Start.Add(d), p.End.Add(d)
		for j := range p.Reservations {
			r := &p.Reservations[j]
			r.Start, r.End = r.Start.Add(d), r.End.Add(d)
		}
	}
}

// suspendedX is node1 with X (2 VMs, 3 min from 30 s) suspended by an
// admin at 160 s until 160 + 324.323 = 484.323 s, and the advance
// reservation Y (2 VMs, 5 min) at 600 s.
func suspendedX(t *testing.T) (s *Scheduler, x, y *Lease) {
	t.Helper()
	s = node1(t)
	x, _ = s.Submit(t0, twoCores("X", BestEffort, 30*time.Second, 3*time.Minute))
	y, _ = s.Submit(t0, twoCores("Y", AdvanceReservation, 10*time.Minute, 5*time.Minute))
	play(s, at(160), nil)
	if _, err := s.AdminSuspend(at(160), x.ID); err != nil {
		t.Fatal(err)
	}
	return s, x, y
}

// TestRestoreReplanning builds the overbooked state of issue 11 item 1:
// on node1, X (2 VMs, 3 min from 30 s) is suspended by an admin at 160 s
// until 160 + 324.323 = 484.323 s; the advance reservation Y (2 VMs,
// 5 min) was at 600 s and its saved plan is moved to 240 s, over X's
// suspension (the host would run 4 cores over [240, 484.323)).
//
// Restore refuses it (ErrInconsistent, over capacity). RestoreReplanning
// keeps X's suspension as it was and plans Y again at the earliest from
// 240 s where it fits: after the suspension, prepare from 484.323 s, run
// over [494.323, 794.323), shutdown to 804.323 s. It reports one change,
// for Y, and Y's history says why. A consistent state gives no change.
func TestRestoreReplanning(t *testing.T) {
	s, x, y := suspendedX(t)
	st, leases := saveAll(s)
	if _, changes, err := RestoreReplanning(s.cfg, emptyLike(t, s), t0, st, leases, nil); err != nil || changes != nil {
		t.Fatalf("consistent state: changes %v, err %v", changes, err)
	}
	shift(&leases[y.ID-1], -6*time.Minute)

	if _, err := Restore(s.cfg, emptyLike(t, s), t0, st, leases, nil); !errors.Is(err, ErrInconsistent) || !errors.Is(err, slottable.ErrOverCapacity) {
		t.Fatalf("strict restore of an overbooked state: %v", err)
	}
	r, changes, err := RestoreReplanning(s.cfg, emptyLike(t, s), t0, st, leases, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatalf("repaired state: %v", err)
	}
	if len(changes) != 1 || changes[0].Lease != y.ID || changes[0].Reason != ReasonRestoreReplanned {
		t.Fatalf("changes %+v, want one for lease %d", changes, y.ID)
	}
	ry, rx := r.Lease(y.ID), r.Lease(x.ID)
	if got := rx.plannedEnd(); !got.Equal(at(160).Add(324322578616)) {
		t.Errorf("X's suspension now ends at %v s, want 484.323 s", got.Sub(t0).Seconds())
	}
	last := ry.History[len(ry.History)-1]
	if last.Reason != ReasonRestoreReplanned ||
		!strings.Contains(last.Detail, "from 2030-01-01 00:08:04 (it was to start at 2030-01-01 00:04:00)") {
		t.Errorf("Y's last history entry: %+v", last)
	}
	log := strings.Join(play(r, at(10000), nil), "\n")
	want := strings.Join([]string{"+484.323 start 2 [0 0]", "+494.323 run 2 [0 0]",
		"+794.323 shutdown 2 [0 0]", "+804.323 done 2 [0 0]"}, "\n")
	if log != want {
		t.Errorf("actions after the repair:\n%s\nwant:\n%s", log, want)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreReplanningStopsOverbookedVMs is the state the old admin
// suspend left after Y began: as in TestRestoreReplanning, X suspends
// over [160, 484.323) and Y's plan is moved to 240 s, but the scheduler
// was saved at 245 s with Y preparing (both on node1: 4 cores). The
// repair keeps X's suspension (the host is doing it, and it began first),
// stops Y's VMs at 245 s, and plans Y again from the earliest time it
// fits: 484.323 s, as before.
func TestRestoreReplanningStopsOverbookedVMs(t *testing.T) {
	s, x, y := suspendedX(t)
	st, leases := saveAll(s)
	sy := &leases[y.ID-1]
	shift(sy, -6*time.Minute)
	sy.Entered, sy.State, st.Now = true, Preparing, at(245)

	r, changes, err := RestoreReplanning(s.cfg, emptyLike(t, s), t0, st, leases, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatalf("repaired state: %v", err)
	}
	if rx := r.Lease(x.ID); rx.State != Suspending || !rx.plannedEnd().Equal(at(160).Add(324322578616)) {
		t.Errorf("X: %s until %v s, want suspending until 484.323 s", rx.State, rx.plannedEnd().Sub(t0).Seconds())
	}
	const detail = "stopped, and planned again from 2030-01-01 00:08:04 (it was to start at 2030-01-01 00:04:00)"
	if len(changes) != 1 || changes[0].Lease != y.ID || !strings.Contains(changes[0].Detail, detail) {
		t.Fatalf("changes %+v, want one for lease %d saying %q", changes, y.ID, detail)
	}
	log := strings.Join(play(r, at(10000), nil), "\n")
	want := strings.Join([]string{"+245.000 stop 2 [0 0]", "+484.323 start 2 [0 0]", "+494.323 run 2 [0 0]",
		"+794.323 shutdown 2 [0 0]", "+804.323 done 2 [0 0]"}, "\n")
	if log != want {
		t.Errorf("actions after the repair:\n%s\nwant:\n%s", log, want)
	}
}
