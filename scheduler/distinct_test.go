package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bora-sched/bora/slottable"
)

// TestAppendDistinct checks the three ways appendDistinct removes
// repeats (a scan up to 16 hosts, a bitset of IDs, a map when an ID is
// negative) against a plain scan: the same hosts in order of first
// appearance, in out's room.
func TestAppendDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for i := range 2000 {
		n := r.IntN(60)
		span := []int{4, 40, 600, 5000}[i%4]
		hosts := make([]slottable.HostID, n)
		for k := range hosts {
			hosts[k] = slottable.HostID(r.IntN(span))
			if i%7 == 0 && r.IntN(10) == 0 {
				hosts[k] = -1 - hosts[k]
			}
		}
		var want []slottable.HostID
		for _, h := range hosts {
			if !slices.Contains(want, h) {
				want = append(want, h)
			}
		}
		var buf [16]slottable.HostID
		if got := appendDistinct(buf[:0], hosts); !slices.Equal(got, want) {
			t.Fatalf("appendDistinct(%v) = %v, want %v", hosts, got, want)
		}
	}
}
