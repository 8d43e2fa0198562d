package slottable

import (
	"math/rand"
	"testing"
)

// TestSortEvents: sortEvents orders random event lists of 0 to 80 events
// (both sides of its insertion-sort bound), with many equal times, by
// time, and keeps every event.
func TestSortEvents(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n <= 80; n++ {
		for k := 0; k < 20; k++ {
			ev := make([]ignEvent, n)
			count := map[ignEvent2]int{}
			for i := range ev {
				ev[i] = ignEvent{at: int64(rng.Intn(n/2 + 1)), sign: int64(i)}
				count[ignEvent2{ev[i].at, ev[i].sign}]++
			}
			sortEvents(ev)
			for i := range ev {
				if i > 0 && ev[i].at < ev[i-1].at {
					t.Fatalf("n=%d: event %d at %d before event %d at %d", n, i-1, ev[i-1].at, i, ev[i].at)
				}
				count[ignEvent2{ev[i].at, ev[i].sign}]--
			}
			for e, c := range count {
				if c != 0 {
					t.Fatalf("n=%d: event %+v counted %d times off", n, e, c)
				}
			}
		}
	}
}

type ignEvent2 struct{ at, sign int64 }
