package scheduler

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// TestLazyReplanMatchesEager drives two schedulers through the same random
// workloads (lazyWorkload), one re-planning from scratch lazily (lazyplan.go) and one
// dropping the queue's plans first (unplanQueue), and requires the same
// actions after every call and the same leases, plans, reservation IDs
// and slot table throughout. The workloads mix every kind, class and
// origin on 2-6 hosts of one or two cores, with early ends, under every
// preemption policy and both backfilling modes, some re-planning only
// every 10 minutes (wakeup_interval). Each seed is a subtest.
func TestLazyReplanMatchesEager(t *testing.T) {
	policies := []preempt.Policy{preempt.NOP, preempt.MOV, preempt.MLIP, preempt.MOML}
	for seed := int64(1); seed <= 240; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			cfg := DefaultConfig()
			cfg.CheckInvariants = true
			cfg.Policy = policies[rng.Intn(len(policies))]
			if rng.Intn(3) == 0 {
				cfg.Backfilling = BackfillAggressive
			}
			if rng.Intn(5) == 0 { // passes only every 10 minutes
				cfg.WakeUp = 10 * time.Minute
			}
			if rng.Intn(4) == 0 { // short runs of suspendable leases
				cfg.ThresholdFactor = 1
			}
			hosts, cores := 2+rng.Intn(5), int64(1+rng.Intn(2))
			lazy, eager := randomCluster(t, cfg, hosts, cores), randomCluster(t, cfg, hosts, cores)
			eager.eager = true
			reqs := lazyWorkload(rng, hosts*int(cores))
			lockstep(lazy, eager, reqs, rng, func(what string, a, b []Action) {
				t.Helper()
				if x, y := fmt.Sprint(a), fmt.Sprint(b); x != y {
					t.Fatalf("%s: actions differ:\nlazy  %s\neager %s", what, x, y)
				}
				if x, y := schedState(lazy), schedState(eager); x != y {
					t.Fatalf("%s: states differ:\nlazy\n%s\neager\n%s", what, x, y)
				}
				if lazy.lazyN != 0 {
					t.Fatalf("%s: %d lazy plans left", what, lazy.lazyN)
				}
			})
			if err := lazy.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// randomCluster is a scheduler under cfg over hosts hosts of cores cores
// (100 CPU and 1024 MB of memory a core).
func randomCluster(t *testing.T, cfg Config, hosts int, cores int64) *Scheduler {
	t.Helper()
	tb := slottable.New()
	for i := 0; i < hosts; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100 * cores, 1024 * cores}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lockstep drives schedulers a and b (built alike) through reqs, every
// event of b's in between, and then to the end, calling check with both
// answers after every call. With rng, now and then before a request the
// oldest lease running ends early (rng decides when, in b).
func lockstep(a, b *Scheduler, reqs []Request, rng *rand.Rand, check func(what string, x, y []Action)) {
	step := func(what string, f func(s *Scheduler) []Action) {
		x, y := f(a), f(b)
		check(what, x, y)
	}
	advance := func(until time.Time, all bool) {
		for {
			next, ok := b.NextEvent()
			if !ok || !all && !next.Before(until) {
				return
			}
			step(fmt.Sprintf("advance to %s", next.Sub(t0)), func(s *Scheduler) []Action { return s.Advance(next) })
		}
	}
	for i, r := range reqs {
		now := t0.Add(r.Arrival)
		advance(now, false)
		if rng != nil && rng.Intn(3) == 0 {
			for _, id := range b.ids {
				if b.leases[id].State == Running {
					step(fmt.Sprintf("lease %d ends at %s", id, now.Sub(t0)), func(s *Scheduler) []Action { return s.Finished(now, id) })
					break
				}
			}
		}
		step(fmt.Sprintf("request %d at %s", i, now.Sub(t0)), func(s *Scheduler) []Action {
			_, acts := s.Submit(now, r)
			return acts
		})
	}
	advance(time.Time{}, true)
}

// gridRequest draws external request i, arriving 0 to 2 units of 5
// minutes after *arrival (which it moves on), lasting 1 to units units,
// of 1 to slots VMs of one core.
func gridRequest(rng *rand.Rand, i int, arrival *time.Duration, units, slots int) Request {
	const unit = 5 * time.Minute
	*arrival += time.Duration(rng.Intn(3)) * unit
	d := time.Duration(1+rng.Intn(units)) * unit
	return Request{Name: fmt.Sprint(i), Arrival: *arrival, Duration: d, VMs: 1 + rng.Intn(slots),
		CPU: 100, Memory: 1024, Origin: External}
}

// lazyWorkload draws 20-60 requests over a few hours for a cluster of
// slots VM slots: best-effort leases of both preemptable classes (and some
// local ones), immediate and advance-reservation ones (local or external)
// and deadline ones, on a 5-minute grid so that many things happen at
// once.
func lazyWorkload(rng *rand.Rand, slots int) []Request {
	const unit = 5 * time.Minute
	var reqs []Request
	arrival := time.Duration(0)
	for i, n := 0, 20+rng.Intn(41); i < n; i++ {
		r := gridRequest(rng, i, &arrival, 12, slots)
		d := r.Duration
		if rng.Intn(2) == 0 {
			r.Real = d / 2
		}
		switch k := rng.Intn(10); {
		case k < 5:
			r.Kind, r.Class = BestEffort, []Class{Cancellable, Suspendable}[rng.Intn(2)]
			if rng.Intn(4) == 0 { // a local one: it preempts to start
				r.Class, r.Origin = NonPreemptable, Local
			}
		case k < 7:
			r.Kind, r.Class, r.Origin = Immediate, NonPreemptable, Local
		case k < 8:
			r.Kind, r.Class = AdvanceReservation, NonPreemptable
			r.Start = arrival + time.Duration(1+rng.Intn(6))*unit
			if rng.Intn(2) == 0 {
				r.Origin = Local
			}
		default:
			r.Kind, r.Class = Deadline, []Class{Migratable, NonPreemptable}[rng.Intn(2)]
			r.Start = arrival + time.Duration(rng.Intn(3))*unit
			r.Deadline = r.Start + d + time.Duration(rng.Intn(8))*unit
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// schedState renders everything about s that a decision can depend on or
// show: each lease's state, reason, history, plan (phases, hosts,
// reservation IDs) and generation, the queue, and the slot table.
func schedState(s *Scheduler) string {
	var b strings.Builder
	for _, id := range s.ids {
		l := s.leases[id]
		fmt.Fprintf(&b, "%d %s %s %q gen=%d cur=%d entered=%v queued=%v hist=%d", l.ID, l.State, l.Reason, l.Detail, l.gen, l.cur, l.entered, l.queued, len(l.History))
		for _, p := range l.plan {
			fmt.Fprintf(&b, " [%s %s-%s %v %v]", p.kind, p.start.Sub(t0), p.end.Sub(t0), p.hosts, p.res)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "queue %v\n", s.queue)
	rs := s.table.Overlapping(t0.Add(-time.Hour), t0.Add(1000*time.Hour))
	slices.SortFunc(rs, func(x, y slottable.Reservation) int { return int(x.ID) - int(y.ID) })
	for _, r := range rs {
		fmt.Fprintf(&b, "res %d lease %d host %d %s-%s\n", r.ID, r.Lease, r.Host, r.Start.Sub(t0), r.End.Sub(t0))
	}
	return b.String()
}
