package sim

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// The energy scenarios run on single-core 1024 MB hosts that start off,
// with the reference power model (117 W on, booting and shutting down; 0
// W off; 2 minutes to boot, 1 to shut down), alpha 5, a grace of 5
// minutes and a tick every 5 minutes (at multiples of 300 s).

// energyRun is a finished run with its power transitions.
type energyRun struct {
	r       *report.Report
	changes []string // "SECONDS hostNNN STATE", in time order
	stats   PowerStats
}

// simulateEnergy runs requests under an energy policy with the invariant
// checker on, as Run does, keeping the power transitions.
func simulateEnergy(t *testing.T, hosts int, policy string, reqs ...*leaseBuilder) energyRun {
	t.Helper()
	return simulateEnergyCfg(t, energyConfig(hosts, policy), reqs...)
}

// energyConfig is a run on single-core 1024 MB hosts under policy.
func energyConfig(hosts int, policy string) Config {
	cfg := Config{Cluster: Cluster{Hosts: hosts, CPU: 100, Memory: 1024}, Scheduler: scheduler.DefaultConfig(),
		Energy: EnergyConfig{Policy: policy, Params: energy.DefaultParams(), Model: energy.DefaultPowerModel()}}
	cfg.Scheduler.CheckInvariants = true
	return cfg
}

func simulateEnergyCfg(t *testing.T, cfg Config, reqs ...*leaseBuilder) energyRun {
	t.Helper()
	rs := make([]scheduler.Request, len(reqs))
	for i, b := range reqs {
		rs[i] = b.Build()
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Arrival < rs[j].Arrival })
	e, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.loop(context.Background(), rs, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Check(); err != nil {
		t.Fatal(err)
	}
	r := e.report(cfg)
	if err := e.power.report(r); err != nil {
		t.Fatal(err)
	}
	ch := append([]powerChange(nil), e.power.changes...)
	sort.SliceStable(ch, func(i, j int) bool { return ch[i].at.Before(ch[j].at) })
	out := energyRun{r: r, stats: e.power.ctl.Stats()}
	for _, c := range ch {
		out.changes = append(out.changes, fmt.Sprintf("%.0f host%03d %s", secs(c.at), c.host, c.state))
	}
	return out
}

// assertJoules checks the run's energy to the millijoule.
func assertJoules(t *testing.T, r *report.Report, joules float64) {
	t.Helper()
	got := *r.Metrics.EnergyKWh * energy.JoulesPerKWh
	if math.Abs(got-joules) > 1e-3 {
		t.Errorf("energy %.6f J (%.9f kWh), want %.3f J", got, *r.Metrics.EnergyKWh, joules)
	}
}

func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// A local advance reservation for two hosts at 1 h on four hosts that are
// off, requested at 600 s, then an external lease at 7300 s.
//
// PEMP at 600 s: nothing waits, V = 0 (LR, membership 1); no host is on,
// P = 0, C = 0 (VL, 1): the one rule firing is LR x VL = HC, f = 2 > 1.
// Num = n = 2 (f >= 2), but the local need at 3600 s (2, the request
// itself) is not <= on 0 - 2: no consolidation, and nothing switched on
// ("the rest by preemption"). There is nothing to preempt: the guard
// switches on the 2 hosts the lease lacks, host000 and host001 (lowest
// IDs), to be on at 3600 s: they boot over [3480, 3600).
//
// GESP at 600 s: local need 2 - on 0 - booting 0 = 2: it switches on the
// same two hosts itself (the guard finds nothing lacking).
//
// The reservation runs [3600, 7200) on both. E (one VM, 1800 s) arrives
// at 7300 s and runs at once on host000 (pack: lowest ID) until 9100 s.
// The tick at 7500 s: nothing waits (V = 0); on hosts 2, booked E over
// [7500, 9100): horizon 1600 s, L = 1600, C = 1600 / (2 x 1600) = 0.5
// (M); PEMP: LR x M = MC, f = 1.5, no request (n = 0); host001 has been
// idle since 7200 s, 300 s >= the grace: it shuts down over [7500, 7560)
// and is off. GESP switches it off the same way. The run ends with E at
// 9100 s.
//
// Energy: host000 boots 120 s and is on [3600, 9100): 5620 s; host001
// boots 120 s, is on [3600, 7500) and shuts down 60 s: 4080 s; all at
// 117 W: 9700 s x 117 W = 1134900 J = 0.31525 kWh.
func TestEnergyLocalReservationAndIdleHost(t *testing.T) {
	for _, c := range []struct {
		policy  string
		guarded int
	}{{"pemp", 2}, {"gesp", 0}, {"sesp", 0}} {
		t.Run(c.policy, func(t *testing.T) {
			run := simulateEnergy(t, 4, c.policy,
				lease("L").At(600).AR(3600).VMs(2).For(3600),
				lease("E").At(7300).For(1800),
			)
			assertLines(t, "power", run.changes, []string{
				"3480 host000 booting", "3480 host001 booting",
				"3600 host000 on", "3600 host001 on",
				"7500 host001 shutting-down", "7560 host001 off",
			})
			assertSpans(t, run.r, []string{
				"L vm 3600.000-7200.000 @0,1",
				"E vm 7300.000-9100.000 @0",
			})
			assertJoules(t, run.r, 1134900)
			if run.stats.SwitchedOn != 2 || run.stats.Guarded != c.guarded || run.stats.SwitchedOff != 1 {
				t.Errorf("stats %+v; want 2 switched on (%d guarded), 1 off", run.stats, c.guarded)
			}
			if *run.r.Metrics.ViolationRate != 0 {
				t.Errorf("violation rate %v, want 0", *run.r.Metrics.ViolationRate)
			}
		})
	}
}

// One external lease E (one VM, 600 s) arrives at 100 s on four hosts
// that are off; nothing else comes. Its waiting threshold is alpha x its
// duration = 3000 s. On the ticks V = (t - 100) / (5 x 600) and, no host
// being on, C = 0 (VL).
//
//   - SESP switches the request's host on when V >= 1: t - 100 >= 3000,
//     the tick at 3300 s; host000 boots [3300, 3420), E runs [3420,
//     4020): it waited 3320 s > 3000 s, a violation (rate 100 %).
//   - PEMP: in the VL column f = 2 mu_LR + 1.5 mu_MR + 0.5 mu_HR + 0.25
//     mu_VHR; for V in [1/3, 2/3], mu_MR = 2 - 3V, mu_HR = 3V - 1 and f
//     = 2.5 - 3V, <= 1 from V = 0.5, t = 1600 s: at the tick 1500 s V =
//     0.4667, f = 1.1 (Num = round(0.1) = 0); at 1800 s V = 0.5667, f =
//     0.8, switch on ceil(1 x 0.2) = 1: host000 boots [1800, 1920), E runs
//     [1920, 2520), having waited 1820 s (no violation).
//   - GESP never switches a host on for an external lease. The trace being
//     over and nothing planned, the tick at 300 s switches on what E needs
//     (drained): E runs [420, 1020).
//
// Each run: one host booting 120 s and on 600 s, 720 s x 117 W = 84240 J.
func TestEnergyExternalWaits(t *testing.T) {
	for _, c := range []struct {
		policy    string
		boot      int
		violation float64
		drained   int
	}{{"sesp", 3300, 100, 0}, {"pemp", 1800, 0, 0}, {"gesp", 300, 0, 1}} {
		t.Run(c.policy, func(t *testing.T) {
			run := simulateEnergy(t, 4, c.policy, lease("E").At(100).For(600))
			b := float64(c.boot)
			assertLines(t, "power", run.changes, []string{
				fmt.Sprintf("%d host000 booting", c.boot), fmt.Sprintf("%d host000 on", c.boot+120),
			})
			assertSpans(t, run.r, []string{fmt.Sprintf("E vm %.3f-%.3f @0", b+120, b+720)})
			assertJoules(t, run.r, 84240)
			if *run.r.Metrics.ViolationRate != c.violation || run.stats.Drained != c.drained {
				t.Errorf("violation rate %v, drained %d; want %v, %d", *run.r.Metrics.ViolationRate, run.stats.Drained, c.violation, c.drained)
			}
		})
	}
}

// energy.violation_alpha measures the rate against its own threshold.
// SESP as in TestEnergyExternalWaits: E (600 s) waits 3320 s. Against
// the run's waiting factor 5 the threshold is 3000 s: a violation (100
// %); against violation_alpha 6 it is 3600 s: none (0 %); against 5
// again, but the waiting factor still drives the policy: with 2, V = (t -
// 100) / 1200 reaches 1 at the tick 1500 s, host000 boots [1500, 1620)
// and E waits 1520 s < 3000 s: 0 % (against its own 1200 s, 100 %).
func TestEnergyViolationAlpha(t *testing.T) {
	for _, c := range []struct {
		name                    string
		violationAlpha, waiting float64 // energy.violation_alpha, energy.waiting_factor
		threshold, start, rate  float64
	}{
		{"own alpha", 0, 5, 3000, 3420, 100},
		{"violation alpha 6", 6, 5, 3600, 3420, 0},
		{"alpha 2 measured at 5", 5, 2, 3000, 1620, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := energyConfig(4, "sesp")
			cfg.Energy.ViolationAlpha = c.violationAlpha
			cfg.Energy.Params.Alpha = c.waiting
			run := simulateEnergyCfg(t, cfg, lease("E").At(100).For(600))
			assertSpans(t, run.r, []string{fmt.Sprintf("E vm %.3f-%.3f @0", c.start, c.start+600)})
			if *run.r.Metrics.ViolationRate != c.rate || run.r.Energy.ThresholdS != c.threshold {
				t.Errorf("violation rate %v, threshold %v s; want %v, %v", *run.r.Metrics.ViolationRate, run.r.Energy.ThresholdS, c.rate, c.threshold)
			}
		})
	}
	bad := energyConfig(4, "sesp")
	bad.Energy.ViolationAlpha = -1
	if err := bad.Energy.Validate(); err == nil || !strings.Contains(err.Error(), "energy.violation_alpha") {
		t.Errorf("violation_alpha -1: %v", err)
	}
}

// PEMP on a tick for an external lease that needs two hosts while one is
// on. L (local, one VM) holds host000 over [1200, 8400) (switched on by
// the guard, booting [1080, 1200)); E (two VMs, 3600 s) arrives at 1300 s
// and cannot start. n = 2 and V = (t - 1300) / 18000 on the ticks.
//
//   - 1500 s: V = 1/90, mu_LR = 1 - 3V = 0.96667, mu_MR = 0.03333; C over
//     host000 alone, booked to 8400 s: C = 1 (VH): f = 0.96667 x AP(1) +
//     0.03333 x 3QP(0.75) = 0.99167 <= 1: PEMP wants ceil(2 x 0.00833) =
//     1 host. E is external and cannot preempt: on the hosts on or booting
//     it has room for no VM over [1620, 5220 + shutdown) (L holds
//     host000), so it lacks 2 hosts and gets both (external-lack):
//     host001 and host002 boot [1500, 1620) and E runs [1620, 5220).
//     (The ceil(n(1-f)) rule alone switched host001 on at 1500 s, where it
//     waited for E, planned after L at 8400 s, until a second host came on
//     at 3900 s: E started at 4020 s, 2400 s later, for 280800 J more.)
//   - host001 and host002, idle from 5220 s, are switched off at the tick
//     5700 s (480 s >= 300 s; on 3 - local need 1 leaves room for both).
//     The run ends with L at 8400 s.
//
// Energy (117 W): host000 120 + 7200 s; host001 and host002 each 120 +
// [1620, 5700) + 60 = 4260 s: 15840 s = 1853280 J.
func TestEnergyPEMPOneHostShort(t *testing.T) {
	run := simulateEnergy(t, 4, "pemp",
		lease("L").At(600).AR(1200).For(7200),
		lease("E").At(1300).VMs(2).For(3600),
	)
	assertLines(t, "power", run.changes, []string{
		"1080 host000 booting", "1200 host000 on",
		"1500 host001 booting", "1500 host002 booting", "1620 host001 on", "1620 host002 on",
		"5700 host001 shutting-down", "5700 host002 shutting-down",
		"5760 host001 off", "5760 host002 off",
	})
	assertSpans(t, run.r, []string{
		"L vm 1200.000-8400.000 @0",
		"E vm 1620.000-5220.000 @1,2",
	})
	assertJoules(t, run.r, 1853280)
	if run.stats.Consolidated != 0 || run.stats.Guarded != 1 {
		t.Errorf("stats %+v; want nothing consolidated, 1 host guarded", run.stats)
	}
	// Idle host time: host001 and host002 each [5220, 5700) before their
	// shutdown, 480 s; nothing after a boot or between two leases.
	if idle := run.r.Energy.Idle; idle == nil || idle.AfterBootH != 0 || idle.BetweenH != 0 || math.Abs(idle.BeforeOffH-960.0/3600) > 1e-9 {
		t.Errorf("idle %+v; want 960 s before off only", idle)
	}
}

// PEMP consolidates: hosts of two VMs each (2 cores, 2048 MB), the spread
// mapper. L (local, four VMs) holds host000 and host001 over [1200, 1800)
// (the guard switches on ceil(4 / 2) = 2 hosts, booting [1080, 1200)). A
// and B (one VM, 20000 s each) arrive at 1300 s and start at 1800 s, one
// on each host (spread). H (six VMs, 600 s) arrives at 1900 s: three
// hosts' worth, more than the two on: it waits, unplanned.
//
// Tick 2100 s, head H: n = 3; V = 200 / (5 x 600) = 0.06667 (mu_LR 0.8,
// mu_MR 0.2); booked: A and B, half a host each, to 21800 s: C = 0.5 x 2
// x 19700 / (2 x 19700) = 0.5 (M): f = 0.8 x MC(1.5) + 0.2 x LC(1.25) =
// 1.45; Num = round(3 x 0.45) = round(1.35) = 1; local need 0 <= on 2 -
// 1: consolidate one host. host000 and host001 hold one lease each; by
// name, host000: A needs room to 21800 + L^s + L^r = 22089.425 s, and
// host001 has one VM free from now on: taken. A is suspended on host000
// over [2100, 2263.311) (L^s of a 1024 MB VM), queued again at the front,
// and resumes on host001 (host000 is closed) over [2263.311, 2389.425);
// it runs its remaining 19700 s to 22089.425 s. host000, empty at
// 2263.311 s, is switched off (shutting down to 2323.311 s).
//
// Tick 2400 s: V = 500 / 3000 = 0.16667 (mu_LR = mu_MR = 0.5); on host001
// only, booked B to 21800 s and A from 2263.311 s to 22089.425 s, half a
// host each: horizon 19689.425 s, L = 0.5 x 19400 + 0.5 x 19689.425 =
// 19544.712, C = 0.99265 (mu_H 0.02939, mu_VH 0.97061): f = 0.5 (1.25 x
// 0.02939 + 1 x 0.97061) + 0.5 (0.5 x 0.02939 + 0.75 x 0.97061) = 0.875:
// PEMP wants ceil(3 x 0.125) = 1 host; H, external, has no room on
// host001 (A and B fill it) and lacks all 3: host000 (off since 2323.311
// s), host002 and host003 boot [2400, 2520).
func TestEnergyPEMPConsolidates(t *testing.T) {
	cfg := energyConfig(4, "pemp")
	cfg.Cluster.CPU, cfg.Cluster.Memory = 200, 2048
	cfg.Scheduler.Mapper = "spread"
	run := simulateEnergyCfg(t, cfg,
		lease("L").At(600).AR(1200).VMs(4).For(600),
		lease("A").At(1300).For(20000),
		lease("B").At(1300).For(20000),
		lease("H").At(1900).VMs(6).For(600),
	)
	if len(run.changes) < 11 {
		t.Fatalf("power changes: %v", run.changes)
	}
	assertLines(t, "first power changes", run.changes[:11], []string{
		"1080 host000 booting", "1080 host001 booting",
		"1200 host000 on", "1200 host001 on",
		"2263 host000 shutting-down", "2323 host000 off",
		"2400 host000 booting", "2400 host002 booting", "2400 host003 booting",
		"2520 host000 on", "2520 host002 on",
	})
	got := spans(run.r)
	var a []string
	for _, s := range got {
		if strings.HasPrefix(s, "A ") || strings.HasPrefix(s, "B ") || strings.HasPrefix(s, "L ") {
			a = append(a, s)
		}
	}
	assertLines(t, "L, A and B", a, []string{
		"L vm 1200.000-1800.000 @0,1",
		"A vm 1800.000-2100.000 @0",
		"B vm 1800.000-21800.000 @1",
		"A suspend 2100.000-2263.311 @0",
		"A resume 2263.311-2389.425 @1",
		"A vm 2389.425-22089.425 @1",
	})
	if run.stats.Consolidated < 1 {
		t.Errorf("stats %+v: nothing consolidated", run.stats)
	}
	if h := leaseByName(t, run.r, "H"); h.State != "done" {
		t.Errorf("H: %+v", h)
	}
}

// always-on: nothing is switched; the energy is every host on all along:
// 4 hosts x 117 W x the makespan 3600 s = 1684800 J.
func TestEnergyAlwaysOn(t *testing.T) {
	run := simulateEnergy(t, 4, "always-on", lease("E").For(3600))
	if len(run.changes) != 0 || run.stats.Decisions != 0 {
		t.Errorf("always-on switched hosts: %v %+v", run.changes, run.stats)
	}
	assertJoules(t, run.r, 4*117*3600)
	if run.r.Energy.MeanHostsOn != 4 {
		t.Errorf("mean hosts on %v, want 4", run.r.Energy.MeanHostsOn)
	}
}

// With idle and busy watts apart, the meter follows the load: one host of
// two, 100 W idle and 200 W busy, always on; E holds it fully for 3600 s:
// host000 200 W x 3600 s, host001 100 W x 3600 s = 1080000 J.
func TestEnergyBusyWatts(t *testing.T) {
	cfg := Config{Cluster: Cluster{Hosts: 2, CPU: 100, Memory: 1024}, Scheduler: scheduler.DefaultConfig(),
		Energy: EnergyConfig{Policy: "always-on", Params: energy.DefaultParams(),
			Model: energy.PowerModel{IdleWatts: 100, BusyWatts: 200}}}
	r, err := Run(cfg, []scheduler.Request{lease("E").For(3600).Build()})
	if err != nil {
		t.Fatal(err)
	}
	assertJoules(t, r, 1080000)
	_ = time.Second
}

// The idle split of the report (sim/energy_idle.go), under GESP: L1
// (local, 1 VM) holds host000 over [1200, 1800), switched on for it
// (booting [1080, 1200)); L2 (local, 1 VM) arrives at 1300 s for [4000,
// 4600) and is placed on host000, on and free then: nothing is switched on
// for it. host000 runs nothing over [1800, 4000) but cannot go off (L2's
// reservation ahead): 2200 s between two leases, longer than grace + tick
// (600 s), before a lease submitted before the gap (held), a local one.
// The run ends with L2 at 4600 s: nothing after it is counted.
func TestEnergyIdleSplit(t *testing.T) {
	run := simulateEnergy(t, 2, "gesp",
		lease("L1").At(600).AR(1200).For(600),
		lease("L2").At(1300).AR(4000).For(600),
	)
	assertSpans(t, run.r, []string{"L1 vm 1200.000-1800.000 @0", "L2 vm 4000.000-4600.000 @0"})
	h := 2200.0 / 3600
	want := report.IdleHours{BetweenH: h, BetweenLongH: h, BetweenHeldH: h, BetweenHeldLocalH: h}
	if idle := run.r.Energy.Idle; idle == nil || *idle != want {
		t.Errorf("idle %+v, want %+v", idle, want)
	}
	// host000: booting 120 s, on [1200, 4600): 3520 s x 117 W.
	assertJoules(t, run.r, 3520*117)
}

// TestEnergyIdleDeterministic: the idle hours are sums of floats over the
// hosts, so a run must add them in the same order every time to print the
// same report (they were added in map order, and their last digits changed
// from run to run). Eight leases on eight hosts end at different times,
// each host idle for a different time before its shutdown (in hours, not
// exact binary fractions): twenty runs must agree to the bit.
func TestEnergyIdleDeterministic(t *testing.T) {
	var reqs []*leaseBuilder
	for i := range 8 {
		reqs = append(reqs, lease(fmt.Sprintf("L%d", i)).At(600).VMs(1).AR(1000).For(3600+float64(37*i+13*i*i)))
	}
	first := simulateEnergy(t, 8, "gesp", reqs...).r.Energy.Idle
	if first == nil || first.BeforeOffH == 0 {
		t.Fatalf("idle %+v: want each host idle before its shutdown", first)
	}
	for range 20 {
		if got := simulateEnergy(t, 8, "gesp", reqs...).r.Energy.Idle; *got != *first {
			t.Fatalf("idle hours differ between runs of the same input: %+v and %+v", *got, *first)
		}
	}
}

// One host; L1 (a local reservation at 1200 s for 600 s) and L2 (one at
// 37800 s, 10 h after L1's end, submitted at 1300 s). GESP switches
// host000 on for L1: it boots over [1080, 1200). From 1800 s it runs
// nothing; the tick at 2100 s finds it idle for the grace (300 s).
//
//   - Without energy.switch_off_ahead it stays on (L2's reservation
//     ahead): booting 120 s, on [1200, 38400): 37320 s x 117 W =
//     4366440 J (1.2129 kWh).
//   - With it, the gap to L2 (35700 s) is above the break-even (the
//     reference model: (117 x 60 + 117 x 120) / (117 - 0) = 180 s, the
//     cycle itself): it shuts down over [2100, 2160), is off, boots over
//     [37680, 37800) (planned at the switch-off) and is on for L2 at
//     37800 s. Booting 120 + on 900 + shutting down 60 + booting 120 + on
//     600 = 1800 s x 117 W = 210600 J (0.0585 kWh).
func TestEnergySwitchOffAhead(t *testing.T) {
	for _, c := range []struct {
		ahead   bool
		changes []string
		joules  float64
		off     int
	}{
		{false, []string{"1080 host000 booting", "1200 host000 on"}, 37320 * 117, 0},
		{true, []string{"1080 host000 booting", "1200 host000 on", "2100 host000 shutting-down", "2160 host000 off",
			"37680 host000 booting", "37800 host000 on"}, 1800 * 117, 1},
	} {
		t.Run(fmt.Sprint(c.ahead), func(t *testing.T) {
			cfg := energyConfig(1, "gesp")
			cfg.Energy.SwitchOffAhead = c.ahead
			run := simulateEnergyCfg(t, cfg,
				lease("L1").At(600).AR(1200).For(600),
				lease("L2").At(1300).AR(37800).For(600),
			)
			assertSpans(t, run.r, []string{"L1 vm 1200.000-1800.000 @0", "L2 vm 37800.000-38400.000 @0"})
			assertLines(t, "power", run.changes, c.changes)
			assertJoules(t, run.r, c.joules)
			if run.stats.SwitchedOff != c.off || run.stats.OffAhead != c.off || run.r.Energy.OffAhead != c.off {
				t.Errorf("stats %+v, report %+v; want %d switched off ahead", run.stats, run.r.Energy, c.off)
			}
		})
	}
}
