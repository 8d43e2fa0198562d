package scheduler

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestPassOrder checks passOrder, a partition of the queue by rank, on
// random queues against the order as stated, a stable sort of the queue:
// deadline-bound leases first by deadline (ties in queue order), then
// local leases, then the others, each group in queue order. Deadlines
// fall on a coarse grid, so that ties are common; some queues hold no
// deadline-bound or local lease at all.
func TestPassOrder(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(23, 31))
	for trial := range 500 {
		s := &Scheduler{}
		n := rng.IntN(40)
		mix := rng.IntN(3) // 0: only rank 2
		for i := range n {
			l := &Lease{ID: LeaseID(i + 1)}
			switch r := rng.IntN(3); {
			case mix > 0 && r == 0:
				l.Req.Class, l.Req.Kind = Migratable, Deadline
				l.Deadline = now.Add(time.Duration(rng.IntN(4)) * time.Hour)
			case mix > 0 && r == 1:
				l.Req.Origin = Local
			}
			s.leases.set(l)
			s.queue = append(s.queue, l.ID)
		}
		rng.Shuffle(len(s.queue), func(i, j int) { s.queue[i], s.queue[j] = s.queue[j], s.queue[i] })
		want := slices.Clone(s.queue)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := s.leases.get(want[i]), s.leases.get(want[j])
			if ra, rb := passRank(a), passRank(b); ra != rb {
				return ra < rb
			}
			return passRank(a) == 0 && a.Deadline.Before(b.Deadline)
		})
		got := s.passOrder()
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: passOrder(%v) = %v, want %v", trial, s.queue, got, want)
		}
		if len(got) > 0 && &got[0] == &s.queue[0] {
			t.Fatalf("trial %d: passOrder returned the queue itself, not a copy", trial)
		}
	}
}
