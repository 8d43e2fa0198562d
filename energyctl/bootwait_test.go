package energyctl

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// TestImmediateLocalLeaseBootsAndPreempts: four single-core hosts, h0 and
// h1 on (switched on at the instant 0), each running a suspendable guest
// (suspending one takes 0.005 + 30 + 2.3 = 32.305 s with a suspend time
// overridden to 30 s), h2 and h3 off; boots take 2 minutes. At 600 s an
// immediate local lease of three VMs arrives, under GESP: local need 3 -
// on 2 - booting 0 = 1 host switched on, h2, booting [600, 720). The
// guard counts the room at 720 s, when h2 is on and both guests can be
// suspended in time: h0, h1, h2 hold the three VMs, so nothing more is
// switched on (before: counted at 600 s, where neither h2 nor the guests
// count, it switched on h3 too). The lease, submitted next, starts at
// 720 s on h0, h1 and h2, the guests suspended to make room: the split
// of GESP, one host switched on and the rest by preemption (before: it
// was rejected, no-capacity even preempting).
func TestImmediateLocalLeaseBootsAndPreempts(t *testing.T) {
	s, c, got := gespOver(t, 4, 30*time.Second)
	var guests []*scheduler.Lease
	for _, n := range []string{"g1", "g2"} {
		l, _ := s.Submit(t0, scheduler.Request{Name: n, Kind: scheduler.BestEffort, VMs: 1, CPU: 100, Memory: 1024,
			Duration: 10 * time.Hour, Class: scheduler.Suspendable, Origin: scheduler.External})
		guests = append(guests, l)
	}
	s.Advance(t0.Add(time.Second))
	*got = nil
	now := t0.Add(600 * time.Second)
	s.Advance(now)
	req := immediateLocal(3)
	c.BeforeSubmit(now, req)
	if want := "[h2 10m0s-12m0s]"; fmt.Sprint(*got) != want {
		t.Errorf("switched on %v, want %s", got, want)
	}
	if st := c.Stats(); st.Guarded != 0 {
		t.Errorf("guarded %d hosts, want 0", st.Guarded)
	}
	l, _ := s.Submit(now, req)
	if l.State != scheduler.Scheduled || !l.PlannedStart().Equal(t0.Add(720*time.Second)) {
		t.Fatalf("immediate lease: %s (%s: %s) from %v; want scheduled from 12m0s", l.State, l.Reason, l.Detail, l.PlannedStart().Sub(t0))
	}
	hosts := slices.Clone(l.Hosts)
	for _, a := range s.Advance(t0.Add(720 * time.Second)) {
		if a.Lease == l.ID && a.Op == scheduler.ActStart {
			hosts = slices.Clone(a.Hosts)
		}
	}
	slices.Sort(hosts)
	if fmt.Sprint(hosts) != "[0 1 2]" {
		t.Errorf("started on %v, want [0 1 2]", hosts)
	}
	for _, g := range guests {
		if g.Reason != scheduler.ReasonPreempted || g.Ops[scheduler.OpSuspend] != 1 || g.State == scheduler.Running {
			t.Errorf("guest %s: %s (%s), operations %v; want suspended once, preempted", g.Req.Name, g.State, g.Reason, g.Ops)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// gespOver is a controller under GESP over n single-core hosts, all off
// but h0 and h1, switched on at the instant 0 (on at once); boots take 2
// minutes, suspending a VM 0.005 + suspend + 2.3 s. got lists the hosts
// switched on as "hN boot-ready".
func gespOver(t *testing.T, n int, suspend time.Duration) (*scheduler.Scheduler, *Controller, *[]string) {
	t.Helper()
	tb := slottable.New()
	for i := 0; i < n; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := scheduler.DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Overheads.SuspendOverride = suspend
	s, err := scheduler.New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.SetPowerTimes(2*time.Minute, time.Minute)
	for i := 0; i < n; i++ {
		if err := s.MarkOff(t0, slottable.HostID(i)); err != nil {
			t.Fatal(err)
		}
	}
	pol, _ := energy.NewPolicy("gesp", energy.DefaultParams())
	got := &[]string{}
	c := New(s, Config{Policy: pol, Alpha: 5, Start: t0, Instant: t0, Hooks: Hooks{
		SwitchedOn: func(h slottable.HostID, boot, ready, _, _ time.Time) {
			*got = append(*got, fmt.Sprintf("h%d %v-%v", h, boot.Sub(t0), ready.Sub(t0)))
		}}})
	c.PowerOn(t0, 0, t0)
	c.PowerOn(t0, 1, t0)
	return s, c, got
}

func immediateLocal(vms int) scheduler.Request {
	return scheduler.Request{Name: "local", Kind: scheduler.Immediate, VMs: vms, CPU: 100, Memory: 1024,
		Duration: time.Hour, Class: scheduler.NonPreemptable, Origin: scheduler.Local}
}

// TestImmediateGuardBootsForAStart: h0 is free, h1 runs a non-preemptable
// guest until 660 s, h2 is off. An immediate local lease of two VMs at
// 600 s: GESP switches nothing on (local need 0 + 2 - on 2 = 0), and at
// 600 s only h0 is free. At 720 s, when a host switched on now would be
// on, h0 and h1 are free, so the room then is enough; but the scheduler
// only waits for the end of a boot, so the guard switches one host on,
// h2 over [600, 720), and the lease starts at 720 s (before: no host was
// switched on and it was rejected, where always-on, h2 on, starts it at
// once).
func TestImmediateGuardBootsForAStart(t *testing.T) {
	s, c, got := gespOver(t, 3, 0)
	g, _ := s.Submit(t0, scheduler.Request{Name: "g", Kind: scheduler.Immediate, VMs: 1, CPU: 100, Memory: 1024,
		Duration: 660 * time.Second, Class: scheduler.NonPreemptable, Origin: scheduler.External})
	s.Advance(t0)
	if g.State != scheduler.Running || g.Hosts[0] != 0 && g.Hosts[0] != 1 {
		t.Fatalf("guest: %s on %v", g.State, g.Hosts)
	}
	*got = nil
	now := t0.Add(600 * time.Second)
	s.Advance(now)
	req := immediateLocal(2)
	c.BeforeSubmit(now, req)
	if want := "[h2 10m0s-12m0s]"; fmt.Sprint(*got) != want {
		t.Errorf("switched on %v, want %s", *got, want)
	}
	if st := c.Stats(); st.Guarded != 1 {
		t.Errorf("guarded %d hosts, want 1", st.Guarded)
	}
	l, _ := s.Submit(now, req)
	if l.State != scheduler.Scheduled || !l.PlannedStart().Equal(t0.Add(720*time.Second)) {
		t.Fatalf("immediate lease: %s (%s: %s) from %v; want scheduled from 12m0s", l.State, l.Reason, l.Detail, l.PlannedStart().Sub(t0))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestRestartBootReachesHooks: h0 holds a local lease for 10 h, h1 runs
// migratable deadline lease D from 0 (3600 s, deadline 4500 s), h2 and
// h3 are off (gespOver). At 600 s a local advance reservation of one VM
// for 1 h from 1800 s arrives. GESP switches nothing on (local need 1 +
// 1 - on 2 = 0) and neither does the guard (at 1800 s D can be suspended
// in time). It fits only by preempting D, suspended over [1636.689,
// 1800) (163.311 s); D, with 1963.311 s left, can end by its deadline
// only on a host switched on for it: h2, booting over [1680, 1800), where
// it restarts at 1800 s (before: the reservation was rejected). The
// scheduler planned that boot itself; the controller tells its hooks at
// its next step, once, and counts it in ForRestart, not in SwitchedOn.
func TestRestartBootReachesHooks(t *testing.T) {
	s, c, got := gespOver(t, 4, 0)
	hold := immediateLocal(1)
	hold.Duration = 10 * time.Hour
	h, _ := s.Submit(t0, hold)
	d, _ := s.Submit(t0, scheduler.Request{Name: "D", Kind: scheduler.Deadline, VMs: 1, CPU: 100, Memory: 1024,
		Duration: time.Hour, Deadline: 4500 * time.Second, Class: scheduler.Migratable, Origin: scheduler.External})
	s.Advance(t0.Add(time.Second))
	if h.State != scheduler.Running || d.State != scheduler.Running {
		t.Fatalf("hold %s, D %s; want both running", h.State, d.State)
	}
	*got = nil
	now := t0.Add(600 * time.Second)
	s.Advance(now)
	ar := immediateLocal(1)
	ar.Kind, ar.Start = scheduler.AdvanceReservation, 1800*time.Second
	c.BeforeSubmit(now, ar)
	if len(*got) != 0 {
		t.Fatalf("the controller switched on %v, want nothing", *got)
	}
	l, _ := s.Submit(now, ar)
	if l.State != scheduler.Scheduled || !l.PlannedStart().Equal(t0.Add(1800*time.Second)) {
		t.Fatalf("reservation: %s (%s: %s) from %v; want scheduled from 30m0s", l.State, l.Reason, l.Detail, l.PlannedStart().Sub(t0))
	}
	c.Step(now, nil)
	c.Step(now.Add(time.Second), nil)
	if want := "[h2 28m0s-30m0s]"; fmt.Sprint(*got) != want {
		t.Errorf("hooks told of %v, want %s", *got, want)
	}
	if st := c.Stats(); st.ForRestart != 1 || st.SwitchedOn != 0 {
		t.Errorf("stats %+v, want ForRestart 1, SwitchedOn 0", st)
	}
	for {
		next, ok := s.NextEvent()
		if !ok || next.After(t0.Add(10000*time.Second)) {
			break
		}
		s.Advance(next)
	}
	// Restarted at 1800 s: copy 160.2 s, resume 126.113 s, 1963.311 s left.
	end := d.History[len(d.History)-1].At.Sub(t0).Seconds()
	if d.State != scheduler.Done || d.DeadlineMissed || math.Abs(end-4049.625) > 0.001 {
		t.Errorf("D: %s at %.3f s (missed %v), want done at 4049.625 s, by its deadline", d.State, end, d.DeadlineMissed)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
