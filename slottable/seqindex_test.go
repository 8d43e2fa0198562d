package slottable

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSeqIndex compares seqIndex with a binary search on increasing
// sequences with even gaps, bursts and long jumps, for every wanted
// number from below the first to past the last.
func TestSeqIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	seq := func(x *uint64) uint64 { return *x }
	for round := range 2000 {
		n := rng.IntN(60)
		s := make([]uint64, n)
		v := uint64(rng.IntN(5))
		for i := range s {
			switch rng.IntN(4) {
			case 0:
				v += 1
			case 1:
				v += 1 + uint64(rng.IntN(3))
			case 2:
				v += 1 + uint64(rng.IntN(1000)) // a jump
			default:
				v += 2
			}
			s[i] = v
		}
		top := v + 3
		for want := uint64(0); want <= top; want++ {
			if n > 0 && want > s[0]+50 && want < top-50 && rng.IntN(20) != 0 {
				continue // inside a long jump: sample it
			}
			got := seqIndex(s, want, seq)
			exp, _ := slices.BinarySearch(s, want)
			if got != exp {
				t.Fatalf("round %d: seqIndex(%v, %d) = %d, binary search %d", round, s, want, got, exp)
			}
		}
	}
}
