package scheduler

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// powered is twoHosts with hosts booting in 120 s and shutting down in
// 60 s.
func powered(t *testing.T) *Scheduler {
	t.Helper()
	s := twoHosts(t)
	s.SetPowerTimes(2*time.Minute, time.Minute)
	return s
}

func local2(name string, start, d time.Duration) Request {
	return Request{Name: name, Kind: AdvanceReservation, Start: start, VMs: 2, CPU: 100, Memory: 1024,
		Duration: d, Class: NonPreemptable, Origin: Local}
}

// TestPowerCycle: h1 switched off at 0 shuts down until 60 s and is off;
// a best-effort lease of two VMs cannot run on h0 alone and waits,
// unplanned. Switched on at 600 s to be on as soon as possible, h1 boots
// from 600 s (600 - 120 < 600) and is on at 720 s, when the lease starts on
// both hosts.
func TestPowerCycle(t *testing.T) {
	s := powered(t)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   float64
		want PowerState
	}{{0, PowerShuttingDown}, {59.999, PowerShuttingDown}, {60, PowerOff}, {1e6, PowerOff}} {
		if got := s.PowerState(1, at(c.at)); got != c.want {
			t.Errorf("h1 at %v s: %s, want %s", c.at, got, c.want)
		}
	}
	req := be("B", time.Hour)
	req.VMs = 2
	l, _ := s.Submit(t0, req)
	log := play(s, at(600), nil)
	if l.State != Queued || len(log) != 0 {
		t.Fatalf("with h1 off: lease %s, actions %v; want queued, none", l.State, log)
	}
	ready, err := s.PowerOn(at(600), 1, at(600))
	if err != nil || !ready.Equal(at(720)) {
		t.Fatalf("PowerOn = %v, %v; want on at 720 s", ready.Sub(t0), err)
	}
	if st := s.PowerState(1, at(700)); st != PowerBooting {
		t.Errorf("h1 at 700 s: %s, want booting", st)
	}
	s.PlanQueue()
	log = render(log, s.Advance(at(600)))
	log = play(s, at(720), log)
	want := []string{"+720.000 start 1 [0 1]", "+720.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if len(s.power.hosts) != 0 || s.table.Len() != 2 { // the lease's run on two hosts; the power reservation is gone
		t.Errorf("after the boot: %d power cycles, %d reservations; want 0, 2", len(s.power.hosts), s.table.Len())
	}
}

// TestPowerOnInTime: h1 is off; switched on at 100 s for an advance
// reservation at 3600 s, it stays off until 3600 - 120 = 3480 s, boots,
// and is on at 3600 s: the reservation for two VMs at 3600 s is accepted,
// one for two VMs at 3000 s is not (h1 is still off then). Switched on
// again at 400 s to be on at 1000 s, its boot moves to [880, 1000), and a
// reservation at 2000 s fits.
func TestPowerOnInTime(t *testing.T) {
	s := powered(t)
	if err := s.MarkOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	if st := s.PowerState(1, t0); st != PowerOff {
		t.Fatalf("marked off: %s", st)
	}
	ready, err := s.PowerOn(at(100), 1, at(3600))
	if err != nil || !ready.Equal(at(3600)) {
		t.Fatalf("PowerOn = %v, %v; want 3600 s", ready.Sub(t0), err)
	}
	if again, _ := s.PowerOn(at(200), 1, at(7200)); !again.Equal(ready) {
		t.Errorf("switching on again for later: %v, want the boot already planned (3600 s)", again.Sub(t0))
	}
	for _, c := range []struct {
		at   float64
		want PowerState
	}{{3479, PowerOff}, {3480, PowerBooting}, {3600, PowerOn}} {
		if got := s.PowerState(1, at(c.at)); got != c.want {
			t.Errorf("h1 at %v s: %s, want %s", c.at, got, c.want)
		}
	}
	early, _ := s.Submit(at(200), local2("early", 3000*time.Second, time.Hour))
	ok, _ := s.Submit(at(200), local2("ok", 3600*time.Second+2*time.Hour, time.Hour))
	inTime, _ := s.Submit(at(200), local2("in time", 3600*time.Second, time.Hour))
	if early.State != Rejected || inTime.State != Scheduled || ok.State != Scheduled {
		t.Errorf("AR at 3000 s %s, at 3600 s %s, at 10800 s %s; want rejected, scheduled, scheduled",
			early.State, inTime.State, ok.State)
	}
	if err := s.PowerOff(at(300), 1); !errors.Is(err, ErrPowerTransition) {
		t.Errorf("PowerOff of a host with a boot planned: %v, want ErrPowerTransition", err)
	}
	if earlier, _ := s.PowerOn(at(400), 1, at(1000)); !earlier.Equal(at(1000)) || s.PowerState(1, at(879)) != PowerOff || s.PowerState(1, at(880)) != PowerBooting {
		t.Errorf("boot moved earlier: on at %v, %s at 879 s, %s at 880 s", earlier.Sub(t0), s.PowerState(1, at(879)), s.PowerState(1, at(880)))
	}
	if l, _ := s.Submit(at(400), local2("moved", 2000*time.Second, 15*time.Minute)); l.State != Scheduled {
		t.Errorf("AR at 2000 s after the boot moved: %s", l.State)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPowerOffRefusals: a host with a reservation from now on stays on; a
// host off is switched off again without error.
func TestPowerOffRefusals(t *testing.T) {
	s := powered(t)
	s.Submit(t0, be("A", time.Hour))
	if err := s.PowerOff(t0, 0); !errors.Is(err, ErrHostBusy) {
		t.Errorf("PowerOff of h0 running A: %v, want ErrHostBusy", err)
	}
	if err := s.PowerOff(at(3600), 0); err != nil {
		t.Errorf("PowerOff of h0 once A is over: %v", err)
	}
	if err := s.PowerOff(at(3601), 0); err != nil {
		t.Errorf("PowerOff of h0 shutting down: %v", err)
	}
	if err := s.PowerOff(t0.Add(2*time.Hour), 7); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("PowerOff of host 7: %v, want ErrUnknownHost", err)
	}
}

// TestEvacuate: A (one VM, suspendable, an hour) runs on h0 from 0, B (one
// VM, 30 min) waits for h1's AR to be over... Emptying h0 at 600 s
// suspends A at once, 600 -> 763.311 s (L^s of one 1024 MB VM), and closes
// h0; A is suspended (its class) and resumes on h1, the only open host, over 763.311 ->
// 889.424 s and runs its remaining 3000 s, to 3889.424 s. h0 cannot be
// switched off while the suspension holds it, and can from 763.311 s.
func TestEvacuate(t *testing.T) {
	s := powered(t)
	a, acts := s.Submit(t0, be("A", time.Hour))
	log := render(nil, acts)
	log = play(s, at(600), log)
	acts, err := s.Evacuate(at(600), 0)
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, acts)
	if !s.Evacuating(0) || s.HostEnabled(0) {
		t.Errorf("h0 evacuating %v, enabled %v; want true, false", s.Evacuating(0), s.HostEnabled(0))
	}
	if err := s.PowerOff(at(700), 0); !errors.Is(err, ErrHostBusy) {
		t.Errorf("PowerOff during the suspension: %v, want ErrHostBusy", err)
	}
	log = play(s, at(764), log)
	if err := s.PowerOff(at(764), 0); err != nil {
		t.Fatalf("PowerOff once emptied: %v", err)
	}
	log = play(s, at(5000), log)
	want := []string{
		"+0.000 start 1 [0]", "+0.000 run 1 [0]",
		"+600.000 suspend 1 [0]",
		"+763.311 resume 1 [1]", "+889.425 run 1 [1]",
		"+3889.425 done 1 [1]",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if a.Preemptions != 1 || a.Ops[OpSuspend] != 1 || !strings.Contains(a.History[4].Detail, "consolidation of host 0") {
		t.Errorf("A: %d preemptions, ops %v, history %v", a.Preemptions, a.Ops, a.History)
	}
	if s.Evacuating(0) || s.PowerState(0, at(5000)) != PowerOff {
		t.Errorf("h0 after power-off: evacuating %v, %s", s.Evacuating(0), s.PowerState(0, at(5000)))
	}
}

// TestEvacuateRefusesAndReplans: a host holding a local lease cannot be
// emptied; a queued lease planned on a host being emptied is planned again
// on another.
func TestEvacuateRefusesAndReplans(t *testing.T) {
	s := powered(t)
	s.Submit(t0, local2("L", time.Hour, time.Hour))
	if _, err := s.Evacuate(t0, 1); !errors.Is(err, ErrNotEvacuable) {
		t.Fatalf("Evacuate with a local lease: %v, want ErrNotEvacuable", err)
	}
	if !s.HostEnabled(1) {
		t.Fatal("a refused evacuation closed the host")
	}
	// A (1 h) runs on h0 and C (2 h) on h1 from 0; B (1 h) is planned on h0
	// after A, at 3600 s. Emptying h0 at 600 s suspends A (to 763.311 s) and
	// drops B's plan: B is planned again at once, on h1 when C ends (7200
	// s); A, queued again when its suspension is over, follows B there at
	// 10800 s.
	s2 := powered(t)
	s2.Submit(t0, be("A", time.Hour))
	s2.Submit(t0, be("C", 2*time.Hour))
	b, _ := s2.Submit(t0, be("B", time.Hour))
	if b.PlannedStart() != at(3600) || b.plan[0].hosts[0] != 0 {
		t.Fatalf("B at %v on %v; want 3600 s on h0", b.PlannedStart().Sub(t0), b.plan[0].hosts)
	}
	play(s2, at(600), nil)
	if _, err := s2.Evacuate(at(600), 0); err != nil {
		t.Fatal(err)
	}
	a := s2.Lease(1)
	if b.PlannedStart() != at(7200) || b.plan[0].hosts[0] != 1 {
		t.Errorf("B planned at %v on %v; want 7200 s on h1", b.PlannedStart().Sub(t0), b.plan[0].hosts)
	}
	play(s2, at(800), nil)
	if a.State != Scheduled || a.PlannedStart() != at(10800) || a.plan[0].hosts[0] != 1 {
		t.Errorf("A: %s at %v on %v; want scheduled at 10800 s on h1", a.State, a.PlannedStart().Sub(t0), a.plan[0].hosts)
	}
	last := b.History[len(b.History)-1]
	for _, e := range b.History {
		if e.Reason == ReasonConsolidated {
			last = e
		}
	}
	if last.Reason != ReasonConsolidated {
		t.Errorf("B's history has no %s: %v", ReasonConsolidated, b.History)
	}
	if err := s2.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPowerRoundTrip: power cycles (a host off, one booting for later, one
// being emptied) survive Save/Restore through JSON: states, reservations
// and what happens next.
func TestPowerRoundTrip(t *testing.T) {
	s := smallCluster(t, 3)
	s.SetPowerTimes(2*time.Minute, time.Minute)
	if err := s.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkOff(t0, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PowerOn(at(10), 2, at(7200)); err != nil {
		t.Fatal(err)
	}
	s.Submit(at(10), be("A", time.Hour))
	s.Advance(at(10))
	if _, err := s.Evacuate(at(20), 0); err != nil {
		t.Fatal(err)
	}
	b := roundTrip(t, s)
	b.SetPowerTimes(s.PowerTimes())
	for h := slottable.HostID(0); h < 3; h++ {
		for _, sec := range []float64{20, 30, 100, 7079, 7080, 7200} {
			if x, y := s.PowerState(h, at(sec)), b.PowerState(h, at(sec)); x != y {
				t.Errorf("host %d at %v s: %s before, %s restored", h, sec, x, y)
			}
		}
		if s.HostEnabled(h) != b.HostEnabled(h) || s.Evacuating(h) != b.Evacuating(h) {
			t.Errorf("host %d: enabled %v/%v, evacuating %v/%v", h, s.HostEnabled(h), b.HostEnabled(h), s.Evacuating(h), b.Evacuating(h))
		}
	}
	if !reflect.DeepEqual(s.State().Power, b.State().Power) {
		t.Errorf("saved power:\n %+v\nrestored:\n %+v", s.State().Power, b.State().Power)
	}
	want, got := play(s, at(20000), nil), play(b, at(20000), nil)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("after restore:\n %v\nuninterrupted:\n %v", got, want)
	}
	if err := b.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestBootsForgottenOnceOn: h2 and h3 (bootCluster: off from 0) are
// switched on at 600 s, on at 720 s. Once the scheduler has advanced past
// 720 s neither has a boot planned any more, nor a power cycle to save
// (before: forgetting h2 while walking the list of pending boots shifted
// h3 out of it, and h3 kept its finished boot for ever).
func TestBootsForgottenOnceOn(t *testing.T) {
	s := bootCluster(t, 0)
	for _, h := range []slottable.HostID{2, 3} {
		if on, err := s.PowerOn(at(600), h, at(600)); err != nil || !on.Equal(at(720)) {
			t.Fatalf("PowerOn(h%d) = %v, %v; want on at 720 s", h, on.Sub(t0), err)
		}
	}
	s.Advance(at(721))
	for _, h := range []slottable.HostID{2, 3} {
		if _, _, ok := s.BootPlanned(h); ok {
			t.Errorf("h%d still has a boot planned at 721 s", h)
		}
	}
	if st, _ := saveAll(s); len(st.Power) != 0 {
		t.Errorf("saved power cycles %+v, want none", st.Power)
	}
}

// TestMovable: Movable says what Evacuate would do without doing it. Five
// hosts: a local advance reservation L holds h0 from 2 h; A, B, C and D
// (external, one host each, 61, 62, 63 and 180 min) run on h0-h3 from 0;
// E (1 h), queued, waits for B's end on h1 (after A's end on h0 it would
// run into L); h4 is off. At 600 s, h0 cannot be emptied (L), h1 (B
// running, E not begun), h2 and h3 can, h4 cannot (not on).
func TestMovable(t *testing.T) {
	s := smallCluster(t, 5)
	s.SetPowerTimes(2*time.Minute, time.Minute)
	if err := s.PowerOff(t0, 4); err != nil {
		t.Fatal(err)
	}
	s.Submit(t0, Request{Name: "L", Kind: AdvanceReservation, Start: 2 * time.Hour, VMs: 1, CPU: 100, Memory: 1024,
		Duration: time.Hour, Class: NonPreemptable, Origin: Local})
	for i, n := range []string{"A", "B", "C"} {
		s.Submit(t0, be(n, time.Hour+time.Duration(i+1)*time.Minute))
	}
	s.Submit(t0, be("D", 3*time.Hour))
	e, _ := s.Submit(t0, be("E", time.Hour))
	now := at(600)
	play(s, now, nil)
	if e.State != Scheduled || e.plan[0].hosts[0] != 1 || e.PlannedStart() != at(3720) {
		t.Fatalf("E %s at %v on %v; want scheduled at 3720 s on h1", e.State, e.PlannedStart().Sub(t0), e.plan[0].hosts)
	}
	want := []bool{false, true, true, true, false}
	for h := range slottable.HostID(5) {
		_, _, err := s.evacuation(now, h)
		evac := err == nil && s.PowerState(h, now) == PowerOn
		if got := s.Movable(h, now, s.LeasesOn(h, now)); got != want[h] || got != evac {
			t.Errorf("h%d: Movable %v, want %v (evacuation: %v)", h, got, want[h], err)
		}
	}
	if ids := s.LeasesOn(1, now); len(ids) != 2 || ids[0] != 3 || ids[1] != e.ID {
		t.Errorf("leases on h1: %v, want [3 %d]", ids, e.ID)
	}
}
