package sim

import (
	"strings"
	"testing"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/scheduler/preempt"
)

// Reference overheads (docs/models.md §2) for a 1024 MB VM:
//   t_s = 1024/6.36 = 161.006289 s, t_r = 1024/8.12 = 126.108374 s,
//   t_p = 0.005 s, delta = 2.3 s.
//   L^s(1 VM) = 0.005 + 161.006289 + 2.3 = 163.311289 s
//   L^r(1 VM) = 0.005 + 126.108374 = 126.113374 s
//   L^s(2 VMs) = 0.010 + 322.012579 + 2.3 = 324.322579 s
//   L^r(2 VMs) = 0.010 + 252.216749 = 252.226749 s

// A best-effort lease is suspended to make room for an advance reservation
// and resumed after it, running exactly its remaining time.
func TestScenarioSuspendResumeAroundAR(t *testing.T) {
	r := simulate(t, 1, scheduler.DefaultConfig(),
		lease("BE").For(10000),
		lease("AR").At(100).AR(3600).For(1000),
	)
	// Suspension ends at the AR's start: 3600 - 163.311 = 3436.689.
	// Resume from 4600 to 4600 + 126.113 = 4726.113.
	// It ran 3436.689 s, so 10000 - 3436.689 = 6563.311 s are left:
	// 4726.113 + 6563.311 = 11289.425.
	assertSpans(t, r, []string{
		"BE vm 0.000-3436.689 @0",
		"BE suspend 3436.689-3600.000 @0",
		"AR vm 3600.000-4600.000 @0",
		"BE resume 4600.000-4726.113 @0",
		"BE vm 4726.113-11289.425 @0",
	})
	be := leaseByName(t, r, "BE")
	if be.State != "done" || be.Preemptions != 1 {
		t.Errorf("BE: state %s, %d preemptions; want done, 1", be.State, be.Preemptions)
	}
	// h = 2*0.005 + 2.3 + 161.006 + 126.108 = 289.425 s
	if got := round3(be.OverheadS); got != 289.425 {
		t.Errorf("BE overhead = %v, want 289.425", got)
	}
}

// With suspension disabled the lease is cancelled (stop time 5 s) and, with
// requeue on, starts again from scratch after the reservation.
func TestScenarioSuspensionDisabled(t *testing.T) {
	for _, requeue := range []bool{true, false} {
		cfg := scheduler.DefaultConfig()
		cfg.Suspension = "none"
		cfg.Requeue = requeue
		cfg.Overheads.Stop = 5e9 // 5 s per VM
		r := simulate(t, 1, cfg,
			lease("BE").For(10000),
			lease("AR").At(100).AR(3600).For(1000),
		)
		// Stopping one VM takes 5 s: stop over [3595, 3600).
		want := []string{
			"BE vm 0.000-3595.000 @0",
			"BE stop 3595.000-3600.000 @0",
			"AR vm 3600.000-4600.000 @0",
		}
		state := "cancelled"
		if requeue {
			// Requeued from scratch: the whole 10000 s again from 4600.
			want = append(want, "BE vm 4600.000-14600.000 @0")
			state = "done"
		}
		assertSpans(t, r, want)
		if be := leaseByName(t, r, "BE"); be.State != state {
			t.Errorf("requeue=%v: BE is %s, want %s", requeue, be.State, state)
		}
	}
}

// Four single-core hosts full of external leases (A: 2 VMs suspendable,
// B: 1 VM cancellable, C: 1 VM suspendable) and a local reservation for
// two VMs. Minimal sets: {A} with h = 0.02 + 2.3 + 2*(161.006+126.108)
// = 576.549 s, and {B, C} with h = 0 + 289.425 = 289.425 s.
func TestScenarioPreemptionPolicies(t *testing.T) {
	cases := []struct {
		policy   preempt.Policy
		overhead float64
		want     []string
	}{
		// MOV: smallest overhead, {B, C}. C suspends over
		// [3600-163.311, 3600); B stops at 3600 (t_stop = 0). C resumes at
		// 7200 on host 2 (pack: lowest free host) and runs the
		// 36000-3436.689 = 32563.311 s left: 7326.113 + 32563.311 = 39889.425.
		{preempt.MOV, 289.425, []string{
			"A vm 0.000-36000.000 @0,1",
			"B vm 0.000-3600.000 @2",
			"C vm 0.000-3436.689 @3",
			"C suspend 3436.689-3600.000 @3",
			"AR vm 3600.000-7200.000 @2,3",
			"C resume 7200.000-7326.113 @2",
			"C vm 7326.113-39889.425 @2",
		}},
		// MLIP: fewest leases, {A}. A suspends over [3600-324.323, 3600),
		// resumes over [7200, 7452.227), and runs 36000-3275.677 =
		// 32724.323 s more: ends at 40176.549.
		{preempt.MLIP, 576.549, []string{
			"A vm 0.000-3275.677 @0,1",
			"B vm 0.000-36000.000 @2",
			"C vm 0.000-36000.000 @3",
			"A suspend 3275.677-3600.000 @0,1",
			"AR vm 3600.000-7200.000 @0,1",
			"A resume 7200.000-7452.227 @0,1",
			"A vm 7452.227-40176.549 @0,1",
		}},
		// MOML: median of {289.425, 576.549} = 432.987; only {B, C} is at
		// or under it, so MOML chooses as MOV does.
		{preempt.MOML, 289.425, nil},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			cfg.Policy = c.policy
			r := simulate(t, 4, cfg,
				lease("A").VMs(2).For(36000),
				lease("B").For(36000).Class(scheduler.Cancellable),
				lease("C").For(36000),
				lease("AR").VMs(2).At(60).AR(3600).For(3600),
			)
			if c.want == nil {
				c.want = cases[0].want
			}
			assertSpans(t, r, c.want)
			if got := round3(r.Metrics.PreemptionOverheadS); got != c.overhead {
				t.Errorf("overhead = %v, want %v", got, c.overhead)
			}
			if ar := leaseByName(t, r, "AR"); ar.State != "done" {
				t.Errorf("AR is %s (%s), want done", ar.State, ar.Reason)
			}
		})
	}
	// NOP: the reservation would fit only by preempting: rejected.
	cfg := scheduler.DefaultConfig()
	cfg.Policy = preempt.NOP
	r := simulate(t, 4, cfg,
		lease("A").VMs(2).For(36000),
		lease("B").For(36000).Class(scheduler.Cancellable),
		lease("C").For(36000),
		lease("AR").VMs(2).At(60).AR(3600).For(3600),
	)
	if ar := leaseByName(t, r, "AR"); ar.State != "rejected" || ar.Reason != "preemption-disabled: fits only by preempting, and the policy is NOP" {
		t.Errorf("NOP: AR is %s (%s), want rejected for preemption-disabled", ar.State, ar.Reason)
	}
}

// Three single-core hosts. L1 holds hosts 0 and 1 until 1000. H (2 VMs)
// is planned for [1000, 1100) on hosts 0 and 1. S (3 VMs) can only run once
// everything is free. X (1 VM, 1500 s) would fit now on host 2, but it
// would still be there at 1100, where S could start.
func TestScenarioBackfilling(t *testing.T) {
	trace := func() []*leaseBuilder {
		return []*leaseBuilder{
			lease("L1").VMs(2).For(1000),
			lease("H").VMs(2).At(1).For(100),
			lease("S").VMs(3).At(2).For(100),
			lease("X").At(3).For(1500),
		}
	}
	cases := []struct {
		backfilling scheduler.Backfilling
		want        []string
	}{
		// Conservative: S holds [1100, 1200), so X cannot start now; it
		// goes after S, at 1200 on host 0.
		{"conservative", []string{
			"L1 vm 0.000-1000.000 @0,1",
			"H vm 1000.000-1100.000 @0,1",
			"S vm 1100.000-1200.000 @0,1,2",
			"X vm 1200.000-2700.000 @0",
		}},
		// Aggressive (N = 1): only H holds a reservation, so X starts at
		// once on host 2 and S waits until X ends at 1503.
		{"aggressive", []string{
			"L1 vm 0.000-1000.000 @0,1",
			"X vm 3.000-1503.000 @2",
			"H vm 1000.000-1100.000 @0,1",
			"S vm 1503.000-1603.000 @0,1,2",
		}},
		// None (FCFS): X waits behind S even though it fits now; H and S
		// start as soon as everything before them has.
		{"none", []string{
			"L1 vm 0.000-1000.000 @0,1",
			"H vm 1000.000-1100.000 @0,1",
			"S vm 1100.000-1200.000 @0,1,2",
			"X vm 1200.000-2700.000 @0",
		}},
	}
	for _, c := range cases {
		t.Run(string(c.backfilling), func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			cfg.Backfilling = c.backfilling
			assertSpans(t, simulate(t, 3, cfg, trace()...), c.want)
		})
	}
}

// A lease that ends earlier than requested frees its host, and the lease
// queued behind it moves up.
func TestScenarioEarlyEnd(t *testing.T) {
	r := simulate(t, 1, scheduler.DefaultConfig(),
		lease("L1").For(1000).Real(300),
		lease("L2").At(1).For(500),
	)
	// L2 was planned for [1000, 1500); L1 ends at 300, so L2 runs [300, 800).
	assertSpans(t, r, []string{
		"L1 vm 0.000-300.000 @0",
		"L2 vm 300.000-800.000 @0",
	})
}

// An immediate local lease suspends a running external lease and starts
// when the suspension is over.
func TestScenarioImmediatePreempts(t *testing.T) {
	r := simulate(t, 1, scheduler.DefaultConfig(),
		lease("BE").For(10000),
		lease("NOW").At(1000).Now().For(600),
	)
	// Suspend [1000, 1163.311); NOW runs [1163.311, 1763.311); BE resumes
	// [1763.311, 1889.425) and runs the 9000 s left: until 10889.425.
	assertSpans(t, r, []string{
		"BE vm 0.000-1000.000 @0",
		"BE suspend 1000.000-1163.311 @0",
		"NOW vm 1163.311-1763.311 @0",
		"BE resume 1763.311-1889.425 @0",
		"BE vm 1889.425-10889.425 @0",
	})
}

// Deadline leases are accepted only when they can end in time.
func TestScenarioDeadline(t *testing.T) {
	r := simulate(t, 1, scheduler.DefaultConfig(),
		lease("AR").AR(1000).For(1000),
		lease("D1").For(500).Deadline(900),
		lease("D2").For(600).Deadline(1500),
	)
	// D1 fits [0, 500) before the reservation. D2 would need [500, 1100)
	// (overlaps AR) or [2000, 2600) (past 1500): rejected. D1 has begun,
	// so it cannot move: the interval itself cannot hold D2.
	assertSpans(t, r, []string{
		"D1 vm 0.000-500.000 @0",
		"AR vm 1000.000-2000.000 @0",
	})
	if d2 := leaseByName(t, r, "D2"); d2.State != "rejected" || !strings.HasPrefix(d2.Reason, "deadline-interval-too-small:") {
		t.Errorf("D2: %s (%s), want rejected: deadline-interval-too-small", d2.State, d2.Reason)
	}
}

// A migratable lease is suspended on its host and resumed on another one,
// its memory image copied first (t_copy = 160.2 s), before its deadline.
func TestScenarioMigration(t *testing.T) {
	r := simulate(t, 2, scheduler.DefaultConfig(),
		lease("L").AR(0).For(3000),
		lease("M").For(5000).Deadline(20000).Class(scheduler.Migratable),
		lease("AR").At(100).AR(1000).For(9000),
	)
	// L takes host 0, M host 1. The AR needs M's host from 1000: suspend
	// [1000-163.311, 1000). M resumes where L was, at 3000: copy
	// [3000, 3160.2), resume [3160.2, 3286.313), then 5000-836.689 =
	// 4163.311 s: until 7449.625.
	assertSpans(t, r, []string{
		"L vm 0.000-3000.000 @0",
		"M vm 0.000-836.689 @1",
		"M suspend 836.689-1000.000 @1",
		"AR vm 1000.000-10000.000 @1",
		"M migrate 3000.000-3160.200 @0",
		"M resume 3160.200-3286.313 @0",
		"M vm 3286.313-7449.625 @0",
	})
	if r.Metrics.MigrationRate != 100 || r.Metrics.DeadlineMisses != 0 {
		t.Errorf("migration rate %v, deadline misses %d; want 100, 0", r.Metrics.MigrationRate, r.Metrics.DeadlineMisses)
	}
	// h(M) = 160.2 + 161.006 + 126.108 + 2*0.005 + 2.3 = 449.625 s
	if got := round3(leaseByName(t, r, "M").OverheadS); got != 449.625 {
		t.Errorf("M overhead = %v, want 449.625", got)
	}
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}

// With a scheduling threshold factor F, a suspendable lease that cannot
// run its whole time before a reservation runs in the gap and is suspended
// at its end, but only if the run lasts at least F times its overheads.
func TestScenarioThresholdFactor(t *testing.T) {
	cases := []struct {
		factor float64
		want   []string
	}{
		// F = 1: T = L^s = 163.311 s; the gap is [0, 5000), so the lease
		// runs 5000 - 163.311 = 4836.689 s >= 163.311, is suspended over
		// [4836.689, 5000), resumes at 6000 and runs the 5163.311 s left.
		{1, []string{
			"BE vm 0.000-4836.689 @0",
			"BE suspend 4836.689-5000.000 @0",
			"AR vm 5000.000-6000.000 @0",
			"BE resume 6000.000-6126.113 @0",
			"BE vm 6126.113-11289.425 @0",
		}},
		// F = 40: it would need 40 * 163.311 = 6532.5 s: it waits instead.
		{40, []string{
			"AR vm 5000.000-6000.000 @0",
			"BE vm 6000.000-16000.000 @0",
		}},
		// F = 0 never starts a lease in a gap shorter than its time.
		{0, []string{
			"AR vm 5000.000-6000.000 @0",
			"BE vm 6000.000-16000.000 @0",
		}},
	}
	for _, c := range cases {
		cfg := scheduler.DefaultConfig()
		cfg.ThresholdFactor = c.factor
		r := simulate(t, 1, cfg,
			lease("AR").AR(5000).For(1000),
			lease("BE").For(10000),
		)
		assertSpans(t, r, c.want)
		if be := leaseByName(t, r, "BE"); be.State != "done" || be.Preemptions != 0 {
			t.Errorf("F=%v: BE %s with %d preemptions; want done, none", c.factor, be.State, be.Preemptions)
		}
	}
}

// Suspend/resume exclusion: two leases on two hosts suspended for the same
// reservation write their images at once (local) or one after the other
// (global), and likewise read them back.
func TestScenarioExclusion(t *testing.T) {
	trace := func() []*leaseBuilder {
		return []*leaseBuilder{
			lease("A").For(10000),
			lease("B").For(10000),
			lease("AR").VMs(2).At(60).AR(3600).For(1000),
		}
	}
	// Local: both suspend over [3436.689, 3600) and resume over
	// [4600, 4726.113); each has 10000 - 3436.689 = 6563.311 s left.
	local := []string{
		"A vm 0.000-3436.689 @0",
		"B vm 0.000-3436.689 @1",
		"A suspend 3436.689-3600.000 @0",
		"B suspend 3436.689-3600.000 @1",
		"AR vm 3600.000-4600.000 @0,1",
		"A resume 4600.000-4726.113 @0",
		"B resume 4600.000-4726.113 @1",
		"A vm 4726.113-11289.425 @0",
		"B vm 4726.113-11289.425 @1",
	}
	// Global: B's suspension goes first, ending where A's begins:
	// [3436.689 - 163.311, 3436.689) = [3273.377, 3436.689). B is back in
	// the queue first, resumes first (on host 0, the first free host) over
	// [4600, 4726.113) and runs 10000 - 3273.377 = 6726.623 s until
	// 11452.736; A resumes after it, [4726.113, 4852.227), and runs its
	// 6563.311 s until 11415.538.
	global := []string{
		"A vm 0.000-3436.689 @0",
		"B vm 0.000-3273.377 @1",
		"B suspend 3273.377-3436.689 @1",
		"A suspend 3436.689-3600.000 @0",
		"AR vm 3600.000-4600.000 @0,1",
		"B resume 4600.000-4726.113 @0",
		"A resume 4726.113-4852.227 @1",
		"B vm 4726.113-11452.736 @0",
		"A vm 4852.227-11415.538 @1",
	}
	for _, c := range []struct {
		exclusion scheduler.Exclusion
		want      []string
	}{{"local", local}, {"global", global}} {
		t.Run(string(c.exclusion), func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			cfg.Exclusion = c.exclusion
			assertSpans(t, simulate(t, 2, cfg, trace()...), c.want)
		})
	}
}

// A preemption is counted once, when its operation happens: a lease
// preempted a second time, earlier, before its first suspension began is
// suspended once and counted once; a lease that ends on its own before its
// planned suspension is not counted at all.
func TestScenarioPreemptionCounted(t *testing.T) {
	// R1 (arrives 600) has V suspended over [6000-163.311, 6000); R2
	// (arrives 1200) needs the host from 3000: V is suspended over
	// [2836.689, 3000) instead. V resumes after R1 (it cannot run its
	// 18000-2836.689 = 15163.311 s left before R1 starts) over
	// [7800, 7926.113) and ends at 7926.113 + 15163.311 = 23089.425.
	r := simulate(t, 1, scheduler.DefaultConfig(),
		lease("V").For(18000),
		lease("R1").At(600).AR(6000).For(1800),
		lease("R2").At(1200).AR(3000).For(600),
	)
	assertSpans(t, r, []string{
		"V vm 0.000-2836.689 @0",
		"V suspend 2836.689-3000.000 @0",
		"R2 vm 3000.000-3600.000 @0",
		"R1 vm 6000.000-7800.000 @0",
		"V resume 7800.000-7926.113 @0",
		"V vm 7926.113-23089.425 @0",
	})
	// One suspension: h = 289.425 s (not twice that).
	v := leaseByName(t, r, "V")
	if v.Preemptions != 1 || round3(v.OverheadS) != 289.425 || r.Metrics.PreemptedByOp["suspend"].Leases != 1 {
		t.Errorf("V: %d preemptions, overhead %v, by operation %v; want 1, 289.425, one suspension",
			v.Preemptions, v.OverheadS, r.Metrics.PreemptedByOp)
	}

	// R (arrives 600) has V suspended over [5836.689, 6000), but V's VMs
	// end at 2400: it was never preempted.
	r = simulate(t, 1, scheduler.DefaultConfig(),
		lease("V").For(18000).Real(2400),
		lease("R").At(600).AR(6000).For(1800),
	)
	assertSpans(t, r, []string{
		"V vm 0.000-2400.000 @0",
		"R vm 6000.000-7800.000 @0",
	})
	v = leaseByName(t, r, "V")
	if v.Preemptions != 0 || v.OverheadS != 0 || r.Metrics.PreemptedLeases != 0 || len(r.Metrics.PreemptedByOp) != 0 || v.Reason != "" {
		t.Errorf("V: %d preemptions, overhead %v, reason %q, metrics %d leases by %v; want none",
			v.Preemptions, v.OverheadS, v.Reason, r.Metrics.PreemptedLeases, r.Metrics.PreemptedByOp)
	}
}

// A migratable deadline lease is a valid victim only if it can then still
// end by its deadline. Three single-core hosts: M (migratable, 10000 s)
// on host 0, S (suspendable, 2 VMs, 20000 s) on hosts 1 and 2; a local
// reservation for one VM over [3600, 10800). The minimal sets are {M},
// h = 160.2 + 161.006 + 126.108 + 2*0.005 + 2.3 = 449.625 s, and {S},
// h = 324.323 + 252.227 = 576.549 s: MOV prefers M.
func TestScenarioDeadlineVictim(t *testing.T) {
	trace := func(deadline float64) []*leaseBuilder {
		return []*leaseBuilder{
			lease("M").For(10000).Deadline(deadline).Class(scheduler.Migratable),
			lease("S").VMs(2).For(20000),
			lease("AR").At(100).AR(3600).For(7200),
		}
	}
	// Deadline 20000: M is suspended over [3600-163.311, 3600); every
	// host is busy until the reservation ends at 10800, where M resumes
	// on host 0 (no copy: the same host) and runs its 10000-3436.689 =
	// 6563.311 s left: 10926.113 + 6563.311 = 17489.425 <= 20000.
	r := simulate(t, 3, scheduler.DefaultConfig(), trace(20000)...)
	assertSpans(t, r, []string{
		"M vm 0.000-3436.689 @0",
		"S vm 0.000-20000.000 @1,2",
		"M suspend 3436.689-3600.000 @0",
		"AR vm 3600.000-10800.000 @0",
		"M resume 10800.000-10926.113 @0",
		"M vm 10926.113-17489.425 @0",
	})
	// Deadline 15000: M would end at 17489.425 (planned with the copy,
	// 17649.6), past it: M is not a valid victim, and S is preempted
	// instead, suspended over [3600-324.323, 3600). The reservation takes
	// host 1; S resumes (anywhere: it is suspendable) when M ends at
	// 10000, on hosts 0 and 2, and runs 20000-3275.677 = 16724.323 s
	// more: 10252.227 + 16724.323 = 26976.549.
	r = simulate(t, 3, scheduler.DefaultConfig(), trace(15000)...)
	assertSpans(t, r, []string{
		"M vm 0.000-10000.000 @0",
		"S vm 0.000-3275.677 @1,2",
		"S suspend 3275.677-3600.000 @1,2",
		"AR vm 3600.000-10800.000 @1",
		"S resume 10000.000-10252.227 @0,2",
		"S vm 10252.227-26976.549 @0,2",
	})
	if m := leaseByName(t, r, "M"); m.Preemptions != 0 || r.Metrics.DeadlineMisses != 0 {
		t.Errorf("M preempted %d times, %d deadline misses; want 0, 0", m.Preemptions, r.Metrics.DeadlineMisses)
	}
}

// A migratable deadline lease preempted for a reservation is resumed on
// another host, before its deadline, although a best-effort lease queued
// before its suspension wanted that host: its restart is held from the
// preemption on. Host 0 holds L (local, [0, 3000)), host 1 holds M
// (migratable, 5000 s, deadline 10000); Q (best-effort, 6000 s) arrives at
// 50 and waits for host 0; the reservation AR needs host 1 over
// [1000, 10000).
func TestScenarioDeadlineVictimResumedElsewhere(t *testing.T) {
	r := simulate(t, 2, scheduler.DefaultConfig(),
		lease("L").AR(0).For(3000),
		lease("M").For(5000).Deadline(10000).Class(scheduler.Migratable),
		lease("Q").At(50).For(6000),
		lease("AR").At(100).AR(1000).For(9000),
	)
	// M is suspended over [1000-163.311, 1000). Its restart is held on
	// host 0 from 3000: copy [3000, 3160.2), resume [3160.2, 3286.313),
	// and its 5000-836.689 = 4163.311 s left, until 7449.625 <= 10000. Q
	// runs after it: [7449.625, 13449.625). (Without the hold, Q would be
	// planned at 3000 on host 0 while M was being suspended, and M would
	// resume after it at 9000 and end at 9286.313 + 4163.311 = 13449.625,
	// past its deadline.)
	assertSpans(t, r, []string{
		"L vm 0.000-3000.000 @0",
		"M vm 0.000-836.689 @1",
		"M suspend 836.689-1000.000 @1",
		"AR vm 1000.000-10000.000 @1",
		"M migrate 3000.000-3160.200 @0",
		"M resume 3160.200-3286.313 @0",
		"M vm 3286.313-7449.625 @0",
		"Q vm 7449.625-13449.625 @0",
	})
	if r.Metrics.DeadlineMisses != 0 || r.Metrics.MigrationRate != 100 {
		t.Errorf("%d deadline misses, migration rate %v; want 0, 100", r.Metrics.DeadlineMisses, r.Metrics.MigrationRate)
	}
}

// A local deadline lease that cannot be placed at its ready time even by
// preempting tries later starts. Host 0 holds the local reservation R1
// over [0, 1000), host 1 the external E (20000 s). D (local, 2 VMs,
// 1000 s, deadline 5000) arrives at 100: at 100 it would need host 0,
// which no preemption frees; at 1000 (the next change point) preempting E
// makes room.
func TestScenarioDeadlinePreemptsLater(t *testing.T) {
	r := simulate(t, 2, scheduler.DefaultConfig(),
		lease("R1").AR(0).For(1000),
		lease("E").For(20000),
		lease("D").VMs(2).At(100).For(1000).Deadline(5000).Local(),
	)
	// E is suspended over [1000-163.311, 1000); D runs [1000, 2000) on
	// both hosts; E resumes at 2000 on host 0 (pack: both hosts idle, the
	// lower ID) and runs 20000-836.689 = 19163.311 s more: until
	// 2126.113 + 19163.311 = 21289.425.
	assertSpans(t, r, []string{
		"E vm 0.000-836.689 @1",
		"R1 vm 0.000-1000.000 @0",
		"E suspend 836.689-1000.000 @1",
		"D vm 1000.000-2000.000 @0,1",
		"E resume 2000.000-2126.113 @0",
		"E vm 2126.113-21289.425 @0",
	})
	if d := leaseByName(t, r, "D"); d.State != "done" {
		t.Errorf("D is %s (%s), want done", d.State, d.Reason)
	}
}

// A local best-effort lease takes the machines it needs from external
// leases (docs/models.md §3): it preempts unless the policy is NOP, in
// which case it waits in the queue.
func TestScenarioLocalBestEffortPreempts(t *testing.T) {
	cases := []struct {
		policy preempt.Policy
		want   []string
	}{
		// E is suspended at once, over [1000, 1163.311); LB runs its 600 s
		// when that is over; E resumes [1763.311, 1889.425) and runs the
		// 9000 s left, until 10889.425.
		{preempt.MOV, []string{
			"E vm 0.000-1000.000 @0",
			"E suspend 1000.000-1163.311 @0",
			"LB vm 1163.311-1763.311 @0",
			"E resume 1763.311-1889.425 @0",
			"E vm 1889.425-10889.425 @0",
		}},
		// NOP: LB waits for E to end.
		{preempt.NOP, []string{
			"E vm 0.000-10000.000 @0",
			"LB vm 10000.000-10600.000 @0",
		}},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			cfg.Policy = c.policy
			assertSpans(t, simulate(t, 1, cfg,
				lease("E").For(10000),
				lease("LB").At(1000).For(600).Local(),
			), c.want)
		})
	}
}
