package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestStarvedFirstOrder checks starvedFirst, which rearranges the pass's
// order in place with integer keys, against the plain statement of the
// rule on random queues: when some are starved, the deadline-bound leases
// first in their order, then the starved ones by the start of their wait,
// ties in their order, then the rest in their order; else the order as it
// was. The waits start on a coarse grid, in
// several locations and a nanosecond apart, so that ties and near ties
// are common; a lease that ran waits from its last suspension.
func TestStarvedFirstOrder(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 5e8, time.UTC) // a nanosecond earlier is the same second
	zones := []*time.Location{time.UTC, time.FixedZone("east", 5*3600), time.FixedZone("west", -7*3600)}
	rng := rand.New(rand.NewPCG(19, 29))
	for trial := range 500 {
		s := &Scheduler{cfg: Config{MaxHeadDelay: time.Hour, Backfilling: BackfillAggressive}}
		var order []LeaseID
		n := rng.IntN(40)
		for i := range n {
			at := func() time.Time {
				return now.Add(-time.Duration(rng.IntN(6))*30*time.Minute - time.Duration(rng.IntN(2))).In(zones[rng.IntN(len(zones))])
			}
			l := &Lease{ID: LeaseID(i + 1), queued: true, Submitted: at()}
			if rng.IntN(3) == 0 { // it ran, and was suspended since
				l.FirstStart = l.Submitted.Add(time.Minute)
				l.History = []Event{{At: at(), State: Suspended}, {At: l.FirstStart, State: Running}}
			}
			if rng.IntN(5) == 0 {
				l.Req.Class, l.Req.Kind, l.Deadline = Migratable, Deadline, now.Add(time.Hour)
			}
			s.leases.set(l)
			order = append(order, l.ID)
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		want := starvedFirstByRule(s, order, now)
		if got := s.starvedFirst(slices.Clone(order), now); !slices.Equal(got, want) {
			t.Fatalf("trial %d: starvedFirst(%v) = %v, want %v", trial, order, got, want)
		}
	}
}

// starvedFirstByRule is starvedFirst's rule as stated, with a stable sort
// on the times themselves.
func starvedFirstByRule(s *Scheduler, order []LeaseID, now time.Time) []LeaseID {
	var bound, starved, rest []LeaseID
	for _, id := range order {
		switch l := s.leases.get(id); {
		case deadlineBound(l):
			bound = append(bound, id)
		case s.starved(l, now):
			starved = append(starved, id)
		default:
			rest = append(rest, id)
		}
	}
	if len(starved) == 0 {
		return order // as it was
	}
	slices.SortStableFunc(starved, func(a, b LeaseID) int {
		return waitingSince(s.leases.get(a)).Compare(waitingSince(s.leases.get(b)))
	})
	return append(append(bound, starved...), rest...)
}

// TestSortStarved checks sortStarved on lists sorted but for k elements
// moved elsewhere (k from 0 to past maxStarvedInsertions, so that both
// its insertion sort and its general sort run), with ties on the wait's
// start, against a sort by the same order.
func TestSortStarved(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 2000 {
		n := 1 + rng.IntN(60)
		xs := make([]starvedAt, n)
		sec := int64(1000)
		for i := range xs {
			sec += int64(rng.IntN(2)) // ties on the second
			xs[i] = starvedAt{sec: sec, nsec: int32(rng.IntN(2)), at: i}
		}
		slices.SortFunc(xs, func(a, b starvedAt) int {
			if a.less(b) {
				return -1
			}
			return 1
		})
		k := rng.IntN(maxStarvedInsertions + 6)
		for range k { // one element moved to another place
			i, j := rng.IntN(n), rng.IntN(n)
			x := xs[i]
			xs = slices.Insert(slices.Delete(xs, i, i+1), j, x)
		}
		want := slices.Clone(xs)
		slices.SortStableFunc(want, starvedAt.compare)
		got := slices.Clone(xs)
		sortStarved(got)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: sortStarved(%v) = %v, want %v", trial, xs, got, want)
		}
	}
}
