package scheduler

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// dl is an external deadline lease of vms one-core 1024 MB VMs arriving at
// arrival, ready at ready, lasting d, ending by deadline (seconds).
func dl(name string, vms int, arrival, ready, d, deadline float64) Request {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	return Request{Name: name, Kind: Deadline, VMs: vms, CPU: 100, Memory: 1024, Arrival: s(arrival), Start: s(ready),
		Duration: s(d), Deadline: s(deadline), Class: Migratable, Origin: External}
}

func planStart(t *testing.T, l *Lease) float64 {
	t.Helper()
	p := l.Plan()
	if len(p) == 0 {
		t.Fatalf("lease %d (%s) has no plan", l.ID, l.State)
	}
	return p[0].Start.Sub(t0).Seconds()
}

// Haizea's deadline1: lease 1 (4 hosts, ready 1800 s, 1800 s, deadline
// 6300 s) is planned at 1800; lease 2 arrives at 900 for the same hosts
// from 1800 with deadline 3600. 1 moves to [3600, 5400) and says so in
// its history; 2 takes [1800, 3600).
func TestMoveDeadlineForNewLease(t *testing.T) {
	s := smallCluster(t, 4)
	one, _ := s.Submit(t0, dl("1", 4, 0, 1800, 1800, 6300))
	if got := planStart(t, one); got != 1800 {
		t.Fatalf("1 planned at %v s, want 1800", got)
	}
	two, _ := s.Submit(at(900), dl("2", 4, 900, 1800, 1800, 3600))
	if two.State != Scheduled {
		t.Fatalf("2 is %s (%s: %s), want scheduled", two.State, two.Reason, two.Detail)
	}
	if a, b := planStart(t, two), planStart(t, one); a != 1800 || b != 3600 {
		t.Errorf("2 at %v s, 1 at %v s; want 1800 and 3600", a, b)
	}
	last := one.History[len(one.History)-1]
	if last.Reason != ReasonMovedForDeadline || !strings.Contains(last.Detail, "lease 2") {
		t.Errorf("1's last history entry %+v, want %s naming lease 2", last, ReasonMovedForDeadline)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	acts := play(s, at(10000), nil)
	want := []string{"+1800.000 start 2 [0 1 2 3]", "+1800.000 run 2 [0 1 2 3]", "+3600.000 start 1 [0 1 2 3]",
		"+3600.000 run 1 [0 1 2 3]", "+3600.000 done 2 [0 1 2 3]", "+5400.000 done 1 [0 1 2 3]"}
	if strings.Join(acts, "\n") != strings.Join(want, "\n") {
		t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(acts, "\n"), strings.Join(want, "\n"))
	}
}

// Moving one lease may need another moved that is not in the new lease's
// way: on one host, A [900, 1800) (deadline 2700) and B [1800, 2700)
// (deadline 3600); C needs [900, 1800) (deadline 1800). A moves to
// [1800, 2700), so B moves to [2700, 3600).
func TestMoveDeadlineChain(t *testing.T) {
	s := smallCluster(t, 1)
	a, _ := s.Submit(t0, dl("A", 1, 0, 900, 900, 2700))
	b, _ := s.Submit(t0, dl("B", 1, 0, 1800, 900, 3600))
	c, _ := s.Submit(t0, dl("C", 1, 0, 900, 900, 1800))
	if c.State != Scheduled {
		t.Fatalf("C is %s (%s: %s), want scheduled", c.State, c.Reason, c.Detail)
	}
	if x, y, z := planStart(t, c), planStart(t, a), planStart(t, b); x != 900 || y != 1800 || z != 2700 {
		t.Errorf("C, A, B at %v, %v, %v s; want 900, 1800, 2700", x, y, z)
	}
}

// The two refusals, and nothing moved when there is no re-plan.
func TestDeadlineRefusalReasons(t *testing.T) {
	t.Run("no re-plan", func(t *testing.T) {
		// 1 has no slack ([1800, 3600) exactly); 2 would fit there alone.
		s := smallCluster(t, 4)
		one, _ := s.Submit(t0, dl("1", 4, 0, 1800, 1800, 3600))
		hist := len(one.History)
		two, _ := s.Submit(at(900), dl("2", 4, 900, 1800, 1800, 3600))
		if two.State != Rejected || two.Reason != ReasonDeadline {
			t.Errorf("2 is %s (%s), want rejected: %s", two.State, two.Reason, ReasonDeadline)
		}
		if got := planStart(t, one); got != 1800 || len(one.History) != hist || one.State != Scheduled {
			t.Errorf("1 at %v s, %d history entries (had %d), %s: want it untouched", got, len(one.History), hist, one.State)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("interval full", func(t *testing.T) {
		// A local AR holds the four hosts over [1800, 3600): nothing moves.
		s := smallCluster(t, 4)
		s.Submit(t0, Request{Kind: AdvanceReservation, Start: 1800 * time.Second, Duration: 1800 * time.Second,
			VMs: 4, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local})
		two, _ := s.Submit(at(900), dl("2", 4, 900, 1800, 1800, 3600))
		if two.State != Rejected || two.Reason != ReasonDeadlineInterval || !strings.Contains(two.Detail, "no room") {
			t.Errorf("2 is %s (%s: %s), want rejected: %s, no room", two.State, two.Reason, two.Detail, ReasonDeadlineInterval)
		}
	})
	t.Run("too short", func(t *testing.T) {
		// Nothing may start in the first 30 min: [1800, 3600) ends after
		// the deadline 3000 s.
		s := smallCluster(t, 1)
		s.cfg.NonSchedulable = 1800 * time.Second
		l, _ := s.Submit(t0, dl("S", 1, 0, 0, 1800, 3000))
		if l.State != Rejected || l.Reason != ReasonDeadlineInterval || !strings.Contains(l.Detail, "duration") {
			t.Errorf("S is %s (%s: %s), want rejected: %s, its duration", l.State, l.Reason, l.Detail, ReasonDeadlineInterval)
		}
	})
}

// BenchmarkSubmitMovingDeadlines times one Submit of a deadline lease that
// fits only by moving n accepted deadline leases: on 4 hosts, n leases of
// 4 VMs for 15 min, ready at 15 min with deadlines far ahead, are planned
// back to back from 15 min; the new one (ready at 15 min, deadline
// 30 min) needs the first slot, so every one of them moves 15 min later
// (they are in one chain). A fresh scheduler is built (not timed) for
// each iteration.
func BenchmarkSubmitMovingDeadlines(b *testing.B) {
	for _, n := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("moved=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tb := slottable.New()
				for h := 0; h < 4; h++ {
					if _, err := tb.AddHost(fmt.Sprintf("h%d", h), slottable.Resources{100, 1024}); err != nil {
						b.Fatal(err)
					}
				}
				s, err := New(DefaultConfig(), tb, t0, nil)
				if err != nil {
					b.Fatal(err)
				}
				for k := 0; k < n; k++ {
					s.Submit(t0, dl(fmt.Sprint(k), 4, 0, 900, 900, float64(900*(n+2))))
				}
				b.StartTimer()
				l, _ := s.Submit(t0, dl("new", 4, 0, 900, 900, 1800))
				if l.State != Scheduled {
					b.Fatalf("new lease is %s (%s), want scheduled", l.State, l.Reason)
				}
			}
		})
	}
}

// The tries of a mover that layMovers would lay out and take back at once
// (futileFrom) are skipped and counted against the budget as trying them
// would: with small budgets, so that searches run out, a scheduler that
// skips them and one that tries them (exhaustive) accept and reject the
// same leases, for the same reasons, with the same plans, on random
// workloads (2-4 one-core hosts, 6-15 deadline leases with up to 6 h of
// slack and advance reservations, on a 15 min grid; budgets of 1 to 40
// tries). Only the IDs of
// later reservations differ: the skipped tries reserved nothing. Each
// search leaves the same budget.
func TestFutileTriesSkipped(t *testing.T) {
	const unit = 15 * time.Minute
	shifted, moved, refused := 0, 0, 0
	for seed := int64(1); seed <= 3000; seed++ {
		rng := rand.New(rand.NewSource(seed))
		hosts := 2 + rng.Intn(3)
		ref, fast := smallCluster(t, hosts), smallCluster(t, hosts)
		ref.exhaustive = true
		ref.moveTries = 1 + rng.Intn(40)
		fast.moveTries = ref.moveTries
		arrival := time.Duration(0)
		for i, n := 0, 6+rng.Intn(10); i < n; i++ {
			arrival += time.Duration(rng.Intn(2)) * unit
			ready := arrival + time.Duration(rng.Intn(3))*unit
			d := time.Duration(1+rng.Intn(8)) * unit
			r := Request{Name: fmt.Sprint(i), Kind: Deadline, VMs: 1 + rng.Intn(hosts), CPU: 100, Memory: 1024,
				Arrival: arrival, Start: ready, Duration: d, Deadline: ready + d + time.Duration(rng.Intn(24))*unit,
				Class: Migratable, Origin: External}
			if rng.Intn(4) == 0 {
				r.Kind, r.Deadline = AdvanceReservation, 0
			}
			now := t0.Add(arrival)
			ref.Advance(now)
			fast.Advance(now)
			a, _ := ref.Submit(now, r)
			b, _ := fast.Submit(now, r)
			if ref.moveLeft != fast.moveLeft {
				t.Fatalf("seed %d, lease %s: the search left %d of its budget exhaustive, %d skipping", seed, r.Name, ref.moveLeft, fast.moveLeft)
			}
			if a.State != b.State || a.Reason != b.Reason {
				t.Fatalf("seed %d, lease %s: %s (%s) exhaustive, %s (%s) skipping", seed, r.Name, a.State, a.Reason, b.State, b.Reason)
			}
			if a.State == Rejected && a.Reason == ReasonDeadline {
				refused++
			}
			for _, id := range ref.ids {
				pa, pb := plainPlan(ref.leases.get(id)), plainPlan(fast.leases.get(id))
				if pa != pb {
					t.Fatalf("seed %d, after lease %s: lease %d planned %s exhaustive, %s skipping", seed, r.Name, id, pa, pb)
				}
				if len(ref.leases.get(id).History) > 0 && ref.leases.get(id).History[len(ref.leases.get(id).History)-1].Reason == ReasonMovedForDeadline {
					moved++
				}
			}
		}
		if maxResID(ref.table) != maxResID(fast.table) {
			shifted++
		}
	}
	t.Logf("shifted %d moved %d refused %d", shifted, moved, refused)
	// The workloads reach what the test is about.
	if shifted == 0 || moved == 0 || refused == 0 {
		t.Fatalf("no instance skipped tries (%d), moved a lease (%d) or refused one as infeasible (%d)", shifted, moved, refused)
	}
}

// plainPlan renders a lease's plan without reservation IDs.
func plainPlan(l *Lease) string {
	var b strings.Builder
	for _, p := range l.plan {
		fmt.Fprintf(&b, "%s[%s,%s)%v ", p.kind, p.start.Sub(t0), p.end.Sub(t0), p.hosts)
	}
	return b.String()
}

// maxResID is the largest reservation ID in the table.
func maxResID(tb *slottable.Table) slottable.ResID {
	var top slottable.ResID
	tb.EachOverlapping(t0.Add(-24*time.Hour), t0.Add(24*365*time.Hour), func(r slottable.Reservation) {
		top = max(top, r.ID)
	})
	return top
}

// moversScan is moversFor as it was: the candidates are the leases of the
// reservations the table holds in each mover's interval, on every host.
func moversScan(s *Scheduler, first *mover, now time.Time) []LeaseID {
	e := s.earliest(now)
	ms := []*mover{first}
	in := map[LeaseID]bool{first.l.ID: true}
	for i := 0; i < len(ms); i++ {
		s.table.EachOverlapping(ms[i].from, ms[i].deadlineOf(), func(r slottable.Reservation) {
			q := s.leases.get(LeaseID(r.Lease))
			if q == nil || in[q.ID] || !movableDeadline(q, e) {
				return
			}
			in[q.ID] = true
			ms = append(ms, s.moverOf(q, e))
		})
	}
	var ids []LeaseID
	for _, m := range ms[1:] {
		ids = append(ids, m.l.ID)
	}
	return ids
}

// TestMoversFromDeadlineLeases: moversFor, which looks only at the
// deadline leases' own reservations, finds the same movers as a scan of
// every reservation in the intervals, on random mixes of deadline,
// best-effort and immediate leases played over time, for new leases with
// random intervals.
func TestMoversFromDeadlineLeases(t *testing.T) {
	const grid = 5 * time.Minute // times meet: the intervals' ends are tested
	asked, found := 0, 0
	for seed := int64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		hosts := 1 + rng.Intn(6)
		s := smallCluster(t, hosts)
		now := t0
		for i := 0; i < 40; i++ {
			now = now.Add(time.Duration(rng.Intn(5)) * grid)
			s.Advance(now)
			arrival := now.Sub(t0)
			d := time.Duration(1+rng.Intn(10)) * grid
			vms := 1 + rng.Intn(hosts)
			var req Request
			switch rng.Intn(3) {
			case 0:
				ready := arrival + time.Duration(rng.Intn(12))*grid
				req = dl(fmt.Sprint(i), vms, arrival.Seconds(), ready.Seconds(), d.Seconds(), (ready + d + time.Duration(rng.Intn(24))*grid).Seconds())
			case 1:
				req = Request{Name: fmt.Sprint(i), Kind: BestEffort, VMs: vms, CPU: 100, Memory: 1024, Arrival: arrival, Duration: d, Class: Suspendable, Origin: External}
			default:
				req = Request{Name: fmt.Sprint(i), Kind: Immediate, VMs: vms, CPU: 100, Memory: 1024, Arrival: arrival, Duration: d, Origin: Local}
			}
			s.Submit(now, req)
			for range 3 {
				from := now.Add(time.Duration(rng.Intn(24)) * grid)
				total := time.Duration(1+rng.Intn(12)) * grid
				l := &Lease{ID: s.nextID + 100, Req: Request{Kind: Deadline}}
				first := &mover{l: l, total: total, from: from, until: from.Add(time.Duration(rng.Intn(24)) * grid)}
				want := moversScan(s, first, now)
				var got []LeaseID
				for _, m := range s.moversFor(first, now) {
					if m.l != l {
						got = append(got, m.l.ID)
					}
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d, lease %d, [%s, %s]: moversFor found %v, the scan %v", seed, i, from, first.until, got, want)
				}
				asked++
				found += len(got)
			}
		}
	}
	if found < asked/4 {
		t.Fatalf("only %d movers over %d questions: the test does not exercise moversFor", found, asked)
	}
}
