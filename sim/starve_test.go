package sim

import (
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// Future partial runs (docs/models.md §3): a suspendable lease that needs
// the whole cluster, behind advance reservations announced ahead that
// leave gaps shorter than its time, runs in the gaps, suspended before
// each reservation, instead of waiting until after all of them.
func TestScenarioFuturePartialRuns(t *testing.T) {
	trace := func() []*leaseBuilder {
		return []*leaseBuilder{
			lease("AR1").VMs(2).AR(3000).For(1000),
			lease("AR2").VMs(2).AR(8000).For(1000),
			lease("X").For(2000),
			lease("BIG").VMs(2).At(1).For(10000),
			lease("Y").At(1500).For(1000).Class(scheduler.Cancellable),
		}
	}
	// Two VMs of 1024 MB (docs/models.md §2): L^s = 2*0.005 + 2*161.0063
	// + 2.3 = 324.3226 s, L^r = 2*0.005 + 2*126.1084 = 252.2267 s. With
	// F = 1 a run must last L^s (starting) or L^r + L^s (resuming).
	//
	// Without future partial runs (today's plan): at 1 BIG's 10000 s fit
	// only after AR2: it holds [9000, 19000), the one reservation of
	// aggressive backfilling. Y (not suspendable, 1000 s) then backfills
	// host 1 over [1500, 2500), which leaves BIG no gap at 2000 (X ends)
	// and 500 s < 648.6 at 2500. BIG first runs at 4000, now, in the gap
	// before AR2: to 8000 - 324.3226 = 7675.6774, and its 6324.3226 s
	// left after resuming at 9000: [9252.2267, 15576.5493).
	off := []string{
		"X vm 0.000-2000.000 @0",
		"Y vm 1500.000-2500.000 @1",
		"AR1 vm 3000.000-4000.000 @0,1",
		"BIG vm 4000.000-7675.677 @0,1",
		"BIG suspend 7675.677-8000.000 @0,1",
		"AR2 vm 8000.000-9000.000 @0,1",
		"BIG resume 9000.000-9252.227 @0,1",
		"BIG vm 9252.227-15576.549 @0,1",
	}
	// With them: at 1 BIG reserves the gap [2000, 3000) (1000 >= 2 *
	// 324.3226): it runs [2000, 2675.6774) and is suspended before AR1,
	// and Y, which would overlap it, waits. While BIG is in that plan Y
	// takes the reservation [4000, 5000); BIG, queued again at 3000,
	// resumes at 5000, runs 2423.4507 s to 7675.6774, is suspended before
	// AR2 and runs its last 6900.8719 s from 9252.2267 to 16153.0986.
	on := []string{
		"X vm 0.000-2000.000 @0",
		"BIG vm 2000.000-2675.677 @0,1",
		"BIG suspend 2675.677-3000.000 @0,1",
		"AR1 vm 3000.000-4000.000 @0,1",
		"Y vm 4000.000-5000.000 @0",
		"BIG resume 5000.000-5252.227 @0,1",
		"BIG vm 5252.227-7675.677 @0,1",
		"BIG suspend 7675.677-8000.000 @0,1",
		"AR2 vm 8000.000-9000.000 @0,1",
		"BIG resume 9000.000-9252.227 @0,1",
		"BIG vm 9252.227-16153.099 @0,1",
	}
	for _, c := range []struct {
		future bool
		want   []string
		start  float64
	}{{false, off, 4000}, {true, on, 2000}} {
		cfg := scheduler.DefaultConfig()
		cfg.ThresholdFactor = 1
		cfg.Backfilling = scheduler.BackfillAggressive
		cfg.FuturePartialRuns = c.future
		r := simulate(t, 2, cfg, trace()...)
		assertSpans(t, r, c.want)
		if big := leaseByName(t, r, "BIG"); big.State != "done" || big.StartS == nil || *big.StartS != c.start {
			t.Errorf("future=%v: BIG %s, started at %v; want done at %v", c.future, big.State, big.StartS, c.start)
		}
	}
}

// The starvation bound of aggressive backfilling (docs/models.md §3): an
// advance reservation announced after the head of the queue has waited
// max_head_delay no longer pushes its reservation back; on a full
// cluster it is rejected instead.
func TestScenarioMaxHeadDelay(t *testing.T) {
	trace := func() []*leaseBuilder {
		return []*leaseBuilder{
			lease("X").For(2000),
			lease("HEAD").At(10).For(1000),
			lease("AR").At(100).AR(2500).For(1000),
		}
	}
	for _, c := range []struct {
		bound time.Duration
		want  []string
		ar    string
	}{
		// No bound: the AR, announced at 100, takes [2500, 3500); HEAD's
		// reservation [2000, 3000) is dropped and it runs after the AR.
		{0, []string{
			"X vm 0.000-2000.000 @0",
			"AR vm 2500.000-3500.000 @0",
			"HEAD vm 3500.000-4500.000 @0",
		}, "done"},
		// Bound 60 s: at 100 HEAD has waited 90 s, so its reservation
		// stays and the AR, which fits nowhere else, is rejected.
		{60 * time.Second, []string{
			"X vm 0.000-2000.000 @0",
			"HEAD vm 2000.000-3000.000 @0",
		}, "rejected"},
		// Bound 120 s: not yet starved at 100: as without a bound.
		{120 * time.Second, []string{
			"X vm 0.000-2000.000 @0",
			"AR vm 2500.000-3500.000 @0",
			"HEAD vm 3500.000-4500.000 @0",
		}, "done"},
	} {
		cfg := scheduler.DefaultConfig()
		cfg.Backfilling = scheduler.BackfillAggressive
		cfg.MaxHeadDelay = c.bound
		r := simulate(t, 1, cfg, trace()...)
		assertSpans(t, r, c.want)
		if ar := leaseByName(t, r, "AR"); ar.State != c.ar {
			t.Errorf("bound %s: AR %s, want %s", c.bound, ar.State, c.ar)
		}
	}
}

// On local storage (docs/models.md §2) a lease's hosts suspend and resume
// in parallel, so a gap need only hold one host's share: the planner
// searches with the most VMs one host can hold, not with all of them one
// after the other. BIG needs the whole cluster (4 hosts of one VM each)
// behind X1, X2 and an advance reservation at 1700; Y, not suspendable,
// could use host 3 from 500 to 1600.
func TestScenarioFuturePartialRunLocalStorage(t *testing.T) {
	trace := []*leaseBuilder{
		lease("X1").VMs(3).For(1000).Class(scheduler.Cancellable),
		lease("X2").For(400).Class(scheduler.Cancellable),
		lease("AR").VMs(4).AR(1700).For(10000),
		lease("BIG").VMs(4).At(1).For(5000),
		lease("Y").At(500).For(1100).Class(scheduler.Cancellable),
		lease("AR2").VMs(4).AR(17500).For(1000),
	}
	// One VM of 1024 MB a host: L^s = 0.005 + 1024/6.36 + 2.3 =
	// 163.3113 s and L^r = 0.005 + 1024/8.12 = 126.1134 s. With F = 1 a
	// future run needs L^s + L^s = 326.6226 s <= 700: at 1 BIG reserves
	// the gap [1000, 1700), runs to 1700 - 163.3113 = 1536.6887 and is
	// suspended before the AR. Y, which would overlap that gap, waits; it
	// takes the reservation once BIG has started, [11700, 12800), and
	// BIG's 4463.3113 s left run after it, resumed at 12800: 126.1134 +
	// 4463.3113 = 4589.4247 s fit before AR2 at 17500 (the four VMs
	// resumed one after the other, 504.4535 s, would not: 4967.7648).
	now := []string{
		"X1 vm 0.000-1000.000 @0,1,2",
		"X2 vm 0.000-400.000 @3",
		"BIG vm 1000.000-1536.689 @0,1,2,3",
		"BIG suspend 1536.689-1700.000 @0,1,2,3",
		"AR vm 1700.000-11700.000 @0,1,2,3",
		"Y vm 11700.000-12800.000 @0",
		"BIG resume 12800.000-12926.113 @0,1,2,3",
		"BIG vm 12926.113-17389.425 @0,1,2,3",
		"AR2 vm 17500.000-18500.000 @0,1,2,3",
	}
	// Searched with the four VMs one after the other, as before (L^s =
	// 4*0.005 + 4*161.0063 + 2.3 = 646.3452 s, twice that 1292.6904 >
	// 700), BIG found no gap; Y backfilled [500, 1600) on host 3, which
	// left BIG 100 s before the AR, and BIG waited for the AR to end.
	before := []string{
		"X1 vm 0.000-1000.000 @0,1,2",
		"X2 vm 0.000-400.000 @3",
		"Y vm 500.000-1600.000 @3",
		"AR vm 1700.000-11700.000 @0,1,2,3",
		"BIG vm 11700.000-16700.000 @0,1,2,3",
		"AR2 vm 17500.000-18500.000 @0,1,2,3",
	}
	_ = before // what the test asserted against the code before the fix
	cfg := scheduler.DefaultConfig()
	cfg.ThresholdFactor = 1
	cfg.Backfilling = scheduler.BackfillAggressive
	cfg.Overheads.Storage = scheduler.StorageLocal
	r := simulate(t, 4, cfg, trace...)
	assertSpans(t, r, now)
	if big := leaseByName(t, r, "BIG"); big.State != "done" || big.StartS == nil || *big.StartS != 1000 {
		t.Errorf("BIG %s, started at %v; want done, started at 1000", big.State, big.StartS)
	}
}
