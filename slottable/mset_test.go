package slottable

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMsetAgainstMap drives the blocked multiset with random increments
// and decrements (enough keys to split and merge blocks many times, and
// the extreme times) and checks every query against a map after each
// step: the keys in order with their counts, ascend over random ranges,
// after, last, and the block invariants (checkBlocks).
func TestMsetAgainstMap(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 0x3e7))
		var m mset
		want := map[int64]int32{}
		span := int64(50 + 3000*int(seed%2)) // few keys, many counts; or many keys
		key := func() int64 {
			switch r.IntN(40) {
			case 0:
				return negInf
			case 1:
				return posInf
			}
			return r.Int64N(span) * 10
		}
		for step := range 20000 {
			// Grow for the first half, then shrink to empty.
			grow := step < 10000 && r.IntN(3) > 0 || step >= 10000 && r.IntN(3) == 0
			if grow || len(want) == 0 {
				k := key()
				m.inc(k)
				want[k]++
			} else {
				keys := slices.Sorted(maps.Keys(want))
				k := keys[r.IntN(len(keys))]
				m.dec(k)
				if want[k]--; want[k] == 0 {
					delete(want, k)
				}
			}
			if step%97 != 0 && step < 19990 {
				continue
			}
			checkMset(t, &m, want, r, span)
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			for range want[k] {
				m.dec(k)
			}
		}
		if len(m.blocks) != 0 || len(m.firsts) != 0 {
			t.Fatalf("seed %d: emptied, the multiset still has %d blocks", seed, len(m.blocks))
		}
		if _, ok := m.last(); ok {
			t.Fatalf("seed %d: emptied, last reports a key", seed)
		}
	}
}

func checkMset(t *testing.T, m *mset, want map[int64]int32, r *rand.Rand, span int64) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(want))
	var got []int64
	m.each(func(k int64, c int32) {
		if c != want[k] {
			t.Fatalf("key %d: count %d, want %d", k, c, want[k])
		}
		got = append(got, k)
	})
	if !slices.Equal(got, keys) {
		t.Fatalf("keys %v, want %v", got, keys)
	}
	if err := m.checkBlocks(); err != nil {
		t.Fatal(err)
	}
	last, ok := m.last()
	if ok != (len(keys) > 0) || ok && last != keys[len(keys)-1] {
		t.Fatalf("last = %d %v, want the largest of %d keys", last, ok, len(keys))
	}
	for range 20 {
		lo, hi := r.Int64N(span*10+20)-10, r.Int64N(span*10+20)-10
		if r.IntN(10) == 0 {
			lo = negInf
		}
		var in, wantIn []int64
		m.ascend(lo, hi, func(k int64) { in = append(in, k) })
		for _, k := range keys {
			if k >= lo && k < hi {
				wantIn = append(wantIn, k)
			}
		}
		if !slices.Equal(in, wantIn) {
			t.Fatalf("ascend [%d, %d) = %v, want %v", lo, hi, in, wantIn)
		}
		a, aok := m.after(lo)
		i, found := slices.BinarySearch(keys, lo)
		if found {
			i++
		}
		if aok != (i < len(keys)) || aok && a != keys[i] {
			t.Fatalf("after(%d) = %d %v, want index %d of %v", lo, a, aok, i, keys)
		}
	}
	c := m.clone()
	m.inc(-5) // a clone does not share blocks with its original
	var cloned []int64
	c.each(func(k int64, _ int32) { cloned = append(cloned, k) })
	m.dec(-5)
	if !slices.Equal(cloned, keys) {
		t.Fatalf("clone holds %v, want %v", cloned, keys)
	}
}
