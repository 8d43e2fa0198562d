package scheduler

import (
	"slices"
	"time"
)

// starved reports whether queued lease l has waited MaxHeadDelay or
// longer under aggressive backfilling (docs/models.md §3, starvation
// bound): since it was submitted if it never started, else since it was
// last suspended. Such a lease is planned before the other queued leases
// (after the deadline-bound ones), so that it is the head that holds one
// of the MaxReservations reservations, and that reservation is no longer
// dropped when an advance
// reservation or deadline lease is accepted (unplanQueue) nor taken by
// preemption (candidates): later requests are placed around it, or
// rejected when they cannot be.
func (s *Scheduler) starved(l *Lease, now time.Time) bool {
	d := s.cfg.MaxHeadDelay
	if d <= 0 || s.cfg.Backfilling != BackfillAggressive || !l.queued || l.entered || deadlineBound(l) {
		return false
	}
	return !now.Before(waitingSince(l).Add(d))
}

// waitingSince is when queued lease l began its current wait: its
// submission, or its last suspension if it has run.
func waitingSince(l *Lease) time.Time {
	if l.FirstStart.IsZero() {
		return l.Submitted
	}
	for i := len(l.History) - 1; i >= 0; i-- {
		if l.History[i].State == Suspended {
			return l.History[i].At
		}
	}
	return l.Submitted
}

// starvedFirst moves the starved leases of order to its front, after the
// deadline-bound ones, longest-waiting first; the others keep their order.
// It rearranges order in place (in s.starveBuf's room): asked at every
// pass over a queue where many have waited past the bound, three lists
// grown from nothing and a sort that read each lease's history at every
// comparison were 5 % of BenchmarkScaleAggressive at 24,000 leases.
func (s *Scheduler) starvedFirst(order []LeaseID, now time.Time) []LeaseID {
	if s.cfg.MaxHeadDelay <= 0 || s.cfg.Backfilling != BackfillAggressive {
		return order
	}
	kinds := s.starveBuf.kinds[:0] // 0 bound, 1 starved, 2 the rest
	starved := s.starveBuf.starved[:0]
	for i, id := range order {
		l := s.leases.get(id)
		switch {
		case deadlineBound(l):
			kinds = append(kinds, 0)
		case s.starved(l, now):
			kinds = append(kinds, 1)
			w := waitingSince(l)
			starved = append(starved, starvedAt{w.Unix(), int32(w.Nanosecond()), i})
		default:
			kinds = append(kinds, 2)
		}
	}
	s.starveBuf.kinds, s.starveBuf.starved = kinds, starved
	if len(starved) == 0 {
		return order
	}
	sortStarved(starved)
	out := append(s.starveBuf.ids[:0], order...) // order is written below
	n := 0
	for i, id := range out {
		if kinds[i] == 0 {
			order[n], n = id, n+1
		}
	}
	for _, st := range starved {
		order[n], n = out[st.at], n+1
	}
	for i, id := range out {
		if kinds[i] == 2 {
			order[n], n = id, n+1
		}
	}
	s.starveBuf.ids = out
	return order
}

// sortStarved sorts the starved leases by the start of their wait, then by
// place in the pass's order: the stable order. They come nearly sorted
// (the queue is in submission order but for the leases suspended since:
// at 24,000 leases under aggressive backfilling about one descent in 264
// a pass), and a general sort took 70 ns a lease. An insertion sort takes
// one comparison a lease and, for each lease out of place, a search of
// the sorted part back from its end by doubling steps, then by halving,
// and one copy. (A lease that waits since lately may sit early in the
// queue, and every one after it then steps back past it; a lease requeued
// after a suspension waits since before most others and goes far back:
// stepping back a place at a time was 4 % of that run, halving over the
// whole sorted part at every lease out of place 2 %.) Past
// maxStarvedInsertions descents it is the general sort.
func sortStarved(starved []starvedAt) {
	descents := 0
	for i := 1; i < len(starved); i++ {
		if starved[i].less(starved[i-1]) {
			descents++
		}
	}
	switch {
	case descents == 0:
		return
	case descents > maxStarvedInsertions:
		slices.SortFunc(starved, starvedAt.compare)
		return
	}
	for i := 1; i < len(starved); i++ {
		x := starved[i]
		if !x.less(starved[i-1]) {
			continue
		}
		// Its place is in [lo, hi]: starved[hi] is after it, and
		// starved[lo-1] (when lo > 0) is not.
		lo, hi := 0, i-1
		for step := 1; hi-step >= 0; step *= 2 {
			if p := hi - step; x.less(starved[p]) {
				hi = p
			} else {
				lo = p + 1
				break
			}
		}
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); x.less(starved[m]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		copy(starved[lo+1:i+1], starved[lo:i])
		starved[lo] = x
	}
}

// maxStarvedInsertions is how many descents sortStarved leaves to an
// insertion sort.
const maxStarvedInsertions = 16

// less orders wait starts, then places (written out: through cmp.Or, the
// comparisons of a pass over 264 starved leases cost 50 ns a lease).
func (a starvedAt) less(b starvedAt) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.nsec != b.nsec {
		return a.nsec < b.nsec
	}
	return a.at < b.at
}

// compare is less as a three-way comparison.
func (a starvedAt) compare(b starvedAt) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// starvedAt is a starved lease's wait start (seconds and nanoseconds of
// the instant: compared as integers, which time.Time.Compare was not)
// and its place in a pass's order (starvedFirst).
type starvedAt struct {
	sec  int64
	nsec int32
	at   int
}

// starveRoom is starvedFirst's room, kept between passes.
type starveRoom struct {
	kinds   []uint8
	starved []starvedAt
	ids     []LeaseID
}
