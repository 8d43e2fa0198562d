package scheduler

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// TestGiveWaySparedMatchesTaking drives two schedulers through the same
// random workloads (lazyWorkload: deadline-bound leases among local ones
// that preempt, so some wait to restart after their deadline can no
// longer be met), one taking the queue's plans whenever a deadline-bound
// lease finds no room by its deadline (takeAlways), one first asking
// whether it would fit with them left out (givingWayMayHelp). It requires
// the same actions after every call and the same leases, plans and slot
// table throughout, but for reservation IDs and generations: a take
// given back whole reserves the plans again under new IDs. The workloads
// must spare some takes, or the test proves nothing.
func TestGiveWaySparedMatchesTaking(t *testing.T) {
	policies := []preempt.Policy{preempt.MOV, preempt.MLIP, preempt.MOML}
	spared, seeds := 0, int64(120)
	if testing.Short() {
		seeds = 30
	}
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := DefaultConfig()
		cfg.CheckInvariants = true
		cfg.Policy = policies[rng.Intn(len(policies))]
		if rng.Intn(3) == 0 {
			cfg.Backfilling = BackfillAggressive
		}
		hosts, cores := 2+rng.Intn(5), int64(1+rng.Intn(2))
		asks, takes := randomCluster(t, cfg, hosts, cores), randomCluster(t, cfg, hosts, cores)
		takes.takeAlways = true
		lockstep(asks, takes, giveWayWorkload(rng, hosts*int(cores)), nil, func(what string, a, b []Action) {
			t.Helper()
			if x, y := fmt.Sprint(a), fmt.Sprint(b); x != y {
				t.Fatalf("seed %d, %s: actions differ:\nasking %s\ntaking %s", seed, what, x, y)
			}
			if x, y := decisionState(asks), decisionState(takes); x != y {
				t.Fatalf("seed %d, %s: states differ:\nasking\n%s\ntaking\n%s", seed, what, x, y)
			}
		})
		if err := asks.Check(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if takes.giveWaySpared != 0 {
			t.Fatalf("seed %d: takeAlways spared %d takes", seed, takes.giveWaySpared)
		}
		spared += asks.giveWaySpared
	}
	t.Logf("%d takes spared", spared)
	if spared < int(seeds)/3 {
		t.Fatalf("only %d takes spared over the workloads: they no longer exercise givingWayMayHelp", spared)
	}
}

// decisionState is schedState without reservation IDs and generations:
// each lease's state, reason, history and plan, the queue, and the slot
// table's reservations by lease, host and time.
func decisionState(s *Scheduler) string {
	var b strings.Builder
	for _, id := range s.ids {
		l := s.leases.get(id)
		fmt.Fprintf(&b, "%d %s %s %q cur=%d entered=%v queued=%v hist=%d", l.ID, l.State, l.Reason, l.Detail, l.cur, l.entered, l.queued, len(l.History))
		for _, p := range l.plan {
			fmt.Fprintf(&b, " [%s %s-%s %v]", p.kind, p.start.Sub(t0), p.end.Sub(t0), p.hosts)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "queue %v\n", s.queue)
	rs := s.table.Overlapping(t0.Add(-time.Hour), t0.Add(1000*time.Hour))
	slices.SortFunc(rs, func(x, y slottable.Reservation) int {
		return cmp.Or(cmp.Compare(x.Lease, y.Lease), cmp.Compare(x.Host, y.Host), x.Start.Compare(y.Start), cmp.Compare(x.Kind, y.Kind))
	})
	for _, r := range rs {
		fmt.Fprintf(&b, "res lease %d host %d %s %s-%s %v\n", r.Lease, r.Host, r.Kind, r.Start.Sub(t0), r.End.Sub(t0), r.Res)
	}
	return b.String()
}

// giveWayWorkload draws 30-80 requests as lazyWorkload does, with more
// migratable deadline leases (a third, with up to 8 hours of slack) and
// local leases that preempt them, and long best-effort leases queued
// behind: deadline-bound leases wait to resume with a queue planned
// around them.
func giveWayWorkload(rng *rand.Rand, slots int) []Request {
	return mixWorkload(rng, slots, 24, workloadMix{bestEffort: 4, immediate: 2, localQueued: 1, slack: 96})
}

// workloadMix is mixWorkload's mix, in tenths of the requests:
// best-effort leases of both preemptable classes, immediate local ones,
// local best-effort ones, and the rest migratable deadline leases with up
// to slack units of 5 minutes of slack.
type workloadMix struct {
	bestEffort, immediate, localQueued, slack int
}

// mixWorkload draws 30-80 external requests on the 5-minute grid
// (gridRequest, up to units units long) and makes them what mix says.
func mixWorkload(rng *rand.Rand, slots, units int, mix workloadMix) []Request {
	const unit = 5 * time.Minute
	var reqs []Request
	arrival := time.Duration(0)
	for i, n := 0, 30+rng.Intn(51); i < n; i++ {
		r := gridRequest(rng, i, &arrival, units, slots)
		d := r.Duration
		switch k := rng.Intn(10); {
		case k < mix.bestEffort:
			r.Kind, r.Class = BestEffort, []Class{Cancellable, Suspendable}[rng.Intn(2)]
		case k < mix.bestEffort+mix.immediate:
			r.Kind, r.Class, r.Origin = Immediate, NonPreemptable, Local
		case k < mix.bestEffort+mix.immediate+mix.localQueued:
			r.Kind, r.Class, r.Origin = BestEffort, NonPreemptable, Local
		default:
			r.Kind, r.Class = Deadline, Migratable
			r.Start = arrival + time.Duration(rng.Intn(3))*unit
			r.Deadline = r.Start + d + time.Duration(rng.Intn(mix.slack))*unit
		}
		reqs = append(reqs, r)
	}
	return reqs
}
