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
