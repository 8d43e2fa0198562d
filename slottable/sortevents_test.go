package slottable

import (
	"math/rand"
	"testing"
)

// TestSortEvents: sortEvents orders event lists of 0 to 600 events (both
// sides of its insertion-sort bound) by time, and keeps every event: times
// random with many equal, random over a wide range, all equal, ascending
// and descending.
func TestSortEvents(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	times := []func(i, n int) int64{
		func(i, n int) int64 { return int64(rng.Intn(n/2 + 1)) },
		func(i, n int) int64 { return rng.Int63() - rng.Int63() },
		func(i, n int) int64 { return 7 },
		func(i, n int) int64 { return int64(i) },
		func(i, n int) int64 { return int64(n - i) },
	}
	for n := 0; n <= 600; n += 1 + n/8 {
		for k := 0; k < 10*len(times); k++ {
			ev := make([]event, n)
			count := map[eventKey]int{}
			for i := range ev {
				ev[i] = event{at: times[k%len(times)](i, n), sign: int64(i)}
				count[eventKey{ev[i].at, ev[i].sign}]++
			}
			sortEvents(ev)
			for i := range ev {
				if i > 0 && ev[i].at < ev[i-1].at {
					t.Fatalf("n=%d: event %d at %d before event %d at %d", n, i-1, ev[i-1].at, i, ev[i].at)
				}
				count[eventKey{ev[i].at, ev[i].sign}]--
			}
			for e, c := range count {
				if c != 0 {
					t.Fatalf("n=%d: event %+v counted %d times off", n, e, c)
				}
			}
		}
	}
}

type eventKey struct{ at, sign int64 }
