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
// every 10 minutes (wakeup_interval). Each seed is a subtest. Some local
// leases must be refused amid the lazy plans (preemptRefusedAmid).
func TestLazyReplanMatchesEager(t *testing.T) {
	policies := []preempt.Policy{preempt.NOP, preempt.MOV, preempt.MLIP, preempt.MOML}
	refused, ran := 0, 0
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
			lockstep(lazy, eager, reqs, rng, matchEager(t, lazy, eager))
			if err := lazy.Check(); err != nil {
				t.Fatal(err)
			}
			refused += lazy.refusedAmid
			ran++
		})
	}
	if ran == 240 && refused == 0 {
		t.Fatal("no local lease was refused amid the lazy plans (preemptRefusedAmid): the comparison does not reach it")
	}
}

// matchEager is lockstep's check of lazy against eager: the same actions
// and the same state (schedState) after every call, and no lazy plan
// left.
func matchEager(t *testing.T, lazy, eager *Scheduler) func(what string, a, b []Action) {
	return matchState(t, lazy, eager, "lazy", "eager")
}

// matchState is lockstep's check of a (called as) against b (bs): the
// same actions and the same state (schedState) after every call, and no
// lazy plan left in a.
func matchState(t *testing.T, a, b *Scheduler, as, bs string) func(what string, x, y []Action) {
	return func(what string, x, y []Action) {
		t.Helper()
		if p, q := fmt.Sprint(x), fmt.Sprint(y); p != q {
			t.Fatalf("%s: actions differ:\n%-8s %s\n%-8s %s", what, as, p, bs, q)
		}
		if p, q := schedState(a), schedState(b); p != q {
			t.Fatalf("%s: states differ:\n%s\n%s\n%s\n%s", what, as, p, bs, q)
		}
		if a.lazyN != 0 {
			t.Fatalf("%s: %d lazy plans left", what, a.lazyN)
		}
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
				if b.leases.get(id).State == Running {
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
// reservation IDs) and generation, the queue, the counts of decisions
// (Stats) and the slot table.
func schedState(s *Scheduler) string {
	var b strings.Builder
	for _, id := range s.ids {
		l := s.leases.get(id)
		fmt.Fprintf(&b, "%d %s %s %q gen=%d cur=%d entered=%v queued=%v hist=%d", l.ID, l.State, l.Reason, l.Detail, l.gen, l.cur, l.entered, l.queued, len(l.History))
		for _, p := range l.plan {
			fmt.Fprintf(&b, " [%s %s-%s %v %v]", p.kind, p.start.Sub(t0), p.end.Sub(t0), p.hosts, p.res)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "queue %v\n", s.queue)
	fmt.Fprintf(&b, "stats %d %v %d\n", s.stats.Preemptions, s.stats.Search, s.stats.Replans)
	rs := s.table.Overlapping(t0.Add(-time.Hour), t0.Add(1000*time.Hour))
	slices.SortFunc(rs, func(x, y slottable.Reservation) int { return int(x.ID) - int(y.ID) })
	for _, r := range rs {
		fmt.Fprintf(&b, "res %d lease %d host %d %s-%s\n", r.ID, r.Lease, r.Host, r.Start.Sub(t0), r.End.Sub(t0))
	}
	return b.String()
}

// TestSettleMatchesEager is TestLazyReplanMatchesEager where settling
// (exact.go) applies most: conservative backfilling, a pass at every
// event, leases that end when planned, many immediate local leases
// refused, and suspended leases waiting to resume (preemption) among
// deadline-bound ones. It requires the same actions and state as the
// eager scheduler after every call (reservation IDs and generations
// included), and that the lazy one settled plans.
func TestSettleMatchesEager(t *testing.T) {
	policies := []preempt.Policy{preempt.NOP, preempt.MOV, preempt.MLIP, preempt.MOML}
	seeds := int64(160)
	if testing.Short() {
		seeds = 40
	}
	settled, ran := 0, 0
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			cfg := DefaultConfig()
			cfg.CheckInvariants = true
			cfg.Policy = policies[rng.Intn(len(policies))]
			hosts, cores := 2+rng.Intn(5), int64(1+rng.Intn(2))
			lazy, eager := randomCluster(t, cfg, hosts, cores), randomCluster(t, cfg, hosts, cores)
			eager.eager = true
			reqs := settleWorkload(rng, hosts*int(cores))
			var early *rand.Rand
			if rng.Intn(4) == 0 {
				early = rng // some early ends: the note is cleared and made again
			}
			lockstep(lazy, eager, reqs, early, matchEager(t, lazy, eager))
			settled += lazy.settled
			ran++
		})
	}
	t.Logf("settled %d", settled)
	if ran == int(seeds) && settled < int(seeds) {
		t.Fatalf("%d plans settled over %d workloads: the note on the plans is seldom made", settled, seeds)
	}
}

// settleWorkload draws 30-80 requests as lazyWorkload does, without early
// ends: best-effort leases of both preemptable classes, immediate local
// leases (many refused on a full cluster), local best-effort ones and
// some migratable deadline leases.
func settleWorkload(rng *rand.Rand, slots int) []Request {
	return mixWorkload(rng, slots, 12, workloadMix{bestEffort: 5, immediate: 3, localQueued: 1, slack: 24})
}

// TestSettleAfterEarlyEnd is a case where the queue keeps its plans after
// an early end (each lease's plan is still its earliest fit among the
// others) while, from scratch, a lease ahead would start earlier than a
// lease behind it lets it: the note that the plans are those from scratch
// must not outlive the early end (exact.go), and the refused lease after
// it must leave the queue planned from scratch. On two hosts of one core:
// C runs on h0 until 30 minutes, A on h1 until 60 (it ends at 25); X (two
// VMs, 40 minutes) waits for 60, and Y (one VM, ready at 30) is planned on
// h0 at 30. After A's end, X fits at 30 without Y, and Y keeps h0 at 30.
func TestSettleAfterEarlyEnd(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Policy = preempt.NOP
	lazy, eager := randomCluster(t, cfg, 2, 1), randomCluster(t, cfg, 2, 1)
	eager.eager = true
	min := func(m int) time.Duration { return time.Duration(m) * time.Minute }
	vm := func(name string, k Kind, o Origin, n int, d time.Duration) Request {
		return Request{Name: name, Kind: k, Origin: o, Class: Cancellable, VMs: n, CPU: 100, Memory: 1024, Duration: d}
	}
	c := vm("C", Immediate, Local, 1, min(30))
	c.Class = NonPreemptable
	a := vm("A", BestEffort, External, 1, min(60))
	a.Real = min(25)
	x := vm("X", BestEffort, External, 2, min(40))
	y := vm("Y", BestEffort, External, 1, min(30))
	y.Start = min(30)
	f := vm("F", Immediate, Local, 2, min(60))
	f.Class, f.Arrival = NonPreemptable, min(26)
	var ids [5]LeaseID
	match := matchEager(t, lazy, eager)
	both := func(what string, call func(s *Scheduler) []Action) {
		t.Helper()
		match(what, call(lazy), call(eager))
	}
	for i, r := range []Request{c, a, x, y} {
		both("submit "+r.Name, func(s *Scheduler) []Action {
			l, acts := s.Submit(t0, r)
			ids[i] = l.ID
			return acts
		})
	}
	if !lazy.exact {
		t.Fatal("no note that the plans are those from scratch after the arrivals")
	}
	planAt := func(id LeaseID) time.Duration { return lazy.leases.get(id).PlannedStart().Sub(t0) }
	if got := planAt(ids[2]); got != min(60) {
		t.Fatalf("X planned at %s, want 60m", got)
	}
	if got := planAt(ids[3]); got != min(30) {
		t.Fatalf("Y planned at %s, want 30m", got)
	}
	both("A ends", func(s *Scheduler) []Action { return s.Finished(t0.Add(min(25)), ids[1]) })
	if got := planAt(ids[2]); got != min(60) {
		t.Fatalf("after A's end X is planned at %s, want 60m (Y is in its way)", got)
	}
	both("submit F", func(s *Scheduler) []Action {
		l, acts := s.Submit(t0.Add(min(26)), f)
		if l.State != Rejected {
			t.Fatalf("F is %s, want rejected", l.State)
		}
		return acts
	})
	if got := planAt(ids[2]); got != min(30) {
		t.Fatalf("after F's refusal X is planned at %s, want 30m (from scratch)", got)
	}
}
