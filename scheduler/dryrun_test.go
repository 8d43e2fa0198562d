package scheduler

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// everything is the scheduler's whole saved state: its own and every
// lease's, with the reservations the plans hold.
func everything(s *Scheduler) (SavedState, []SavedLease) {
	var leases []SavedLease
	for _, l := range s.Leases() {
		sl, _ := s.Save(l.ID)
		leases = append(leases, sl)
	}
	return s.State(), leases
}

// dryRunRequests are requests of every kind into benchBusy's cluster at
// now: best-effort (queued behind the others with a reservation), an
// immediate one (no room: rejected, or preempting when local), an advance
// reservation that must preempt, a deadline lease, one too large.
func dryRunRequests(s *Scheduler, now time.Time) []Request {
	at := now.Sub(s.epoch)
	return []Request{
		{Kind: BestEffort, Arrival: at, Duration: 2 * time.Hour, VMs: 4, CPU: 100, Memory: 2048, Class: Suspendable, Origin: External},
		{Kind: Immediate, Arrival: at, Duration: time.Hour, VMs: 2, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: External},
		{Kind: Immediate, Arrival: at, Duration: time.Hour, VMs: 6, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local},
		{Kind: AdvanceReservation, Arrival: at, Start: at + 30*time.Minute, Duration: time.Hour, VMs: 8, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local},
		{Kind: BestEffort, Arrival: at, Duration: time.Hour, Deadline: at + 30*time.Hour, VMs: 3, CPU: 100, Memory: 1024, Class: Suspendable, Origin: External},
		{Kind: BestEffort, Arrival: at, Duration: time.Hour, VMs: 1000, CPU: 100, Memory: 1024, Class: Suspendable, Origin: External},
	}
}

// TestDryRunChangesNothing: a dry run leaves the scheduler's state and
// every lease (plans, reservations, histories) as they were, and the
// real Submit that follows decides exactly what the dry run said (same
// ID, state, reason, detail, start, end, hosts).
func TestDryRunChangesNothing(t *testing.T) {
	kinds := map[State]int{}
	for seed := uint64(1); seed <= 4; seed++ {
		for i := range dryRunRequests(&Scheduler{}, benchEpoch) {
			t.Run(fmt.Sprintf("seed%d/req%d", seed, i), func(t *testing.T) {
				s, now := benchBusy(t, 12, seed)
				now = now.Add(7 * time.Minute) // between events: Submit runs what is due first
				req := dryRunRequests(s, now)[i]
				st, leases := everything(s)
				got := s.DryRun(now, req)
				st2, leases2 := everything(s)
				if !reflect.DeepEqual(st, st2) {
					t.Fatalf("the dry run changed the scheduler's state:\n%+v\n%+v", st, st2)
				}
				if !reflect.DeepEqual(leases, leases2) {
					t.Fatal("the dry run changed some lease")
				}
				if err := s.Check(); err != nil {
					t.Fatal(err)
				}
				l, _ := s.Submit(now, req)
				want := DryRun{ID: l.ID, State: l.State, Reason: l.Reason, Detail: l.Detail}
				if p := l.Plan(); len(p) > 0 {
					want.Start, want.End = p[0].Start, p[len(p)-1].End
					want.Hosts = slices.Compact(slices.Sorted(slices.Values(p[0].Hosts)))
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("dry run %+v, Submit %+v", got, want)
				}
				kinds[got.State]++
			})
		}
	}
	// Every outcome is exercised: planned (scheduled or running) and rejected.
	if kinds[Rejected] == 0 || kinds[Scheduled]+kinds[Running]+kinds[Preparing] == 0 {
		t.Errorf("outcomes seen: %v", kinds)
	}
}

// TestCloneIsIndependent: submitting to a clone (here a local lease that
// preempts) changes the clone only.
func TestCloneIsIndependent(t *testing.T) {
	s, now := benchBusy(t, 8, 3)
	st, leases := everything(s)
	c := s.Clone()
	cst, cleases := everything(c)
	if !reflect.DeepEqual(st.Queue, cst.Queue) || st.NextID != cst.NextID || len(leases) != len(cleases) {
		t.Fatal("the clone differs from the original")
	}
	l, acts := c.Submit(now, Request{Kind: Immediate, Arrival: now.Sub(c.epoch), Duration: time.Hour, VMs: 8,
		CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local})
	if l.State == Rejected || len(acts) == 0 {
		t.Fatalf("the local lease was not placed by preempting: %s %s, %d actions", l.State, l.Detail, len(acts))
	}
	c.Advance(now.Add(3 * time.Hour))
	st2, leases2 := everything(s)
	if !reflect.DeepEqual(st, st2) || !reflect.DeepEqual(leases, leases2) {
		t.Fatal("the original changed")
	}
	if s.Lease(l.ID) != nil || len(s.Table().ForLease(uint64(l.ID))) > 0 {
		t.Fatal("the original holds the clone's lease")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDryRun times one dry run of a best-effort lease (4 VMs of 1
// core / 2 GB for 2 hours) into benchBusy's cluster: a copy of the
// scheduler and a Submit on it. BenchmarkSubmitBestEffort is the Submit
// alone.
func BenchmarkDryRun(b *testing.B) {
	for _, hosts := range benchSizes {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			s, now := benchBusy(b, hosts, 1)
			req := Request{Kind: BestEffort, Arrival: now.Sub(s.epoch), Duration: 2 * time.Hour, VMs: 4, CPU: 100,
				Memory: 2048, Class: Suspendable, Origin: External}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.DryRun(now, req)
			}
		})
	}
}
