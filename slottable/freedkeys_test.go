package slottable

import (
	"math/rand/v2"
	"testing"
)

// TestFreedKeysAgainstMap drives freedKeys and a Go map with the same
// sets, overwrites and takings over a small key space (so probes
// collide, wrap around the end and delete from the middle of a run) and
// compares every key's lookup after each step.
func TestFreedKeysAgainstMap(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0x2e))
		var x freedKeys
		m := map[freedKey]uint64{}
		key := func() freedKey {
			s := int64(r.IntN(6)) * 3600e9
			return freedKey{lease: uint64(r.IntN(40)), host: HostID(r.IntN(4)), s: s, e: s + int64(1+r.IntN(3))*1800e9}
		}
		for step := range 20000 {
			k := key()
			switch op := r.IntN(10); {
			case op < 6:
				seq := uint64(r.IntN(1 << 30))
				x.set(k, seq)
				m[k] = seq
			default: // taken when below a limit, or whatever it is
				limit := uint64(r.IntN(1 << 30))
				if op == 9 {
					limit = ^uint64(0)
				}
				want, wok := m[k]
				wok = wok && want < limit
				if wok {
					delete(m, k)
				} else {
					want = 0
				}
				if got, gok := x.takeBefore(k, limit); got != want || gok != wok {
					t.Fatalf("seed %d step %d: takeBefore(%v, %d) = %d %v, map %d %v", seed, step, k, limit, got, gok, want, wok)
				}
			}
			q := key()
			got, gok := lookup(&x, q)
			want, wok := m[q]
			if got != want || gok != wok {
				t.Fatalf("seed %d step %d: lookup(%v) = %d %v, map %d %v", seed, step, q, got, gok, want, wok)
			}
			if x.len() != len(m) {
				t.Fatalf("seed %d step %d: len %d, map %d", seed, step, x.len(), len(m))
			}
		}
		for k, want := range m {
			if got, ok := lookup(&x, k); !ok || got != want {
				t.Fatalf("seed %d: lookup(%v) = %d %v at the end, map %d", seed, k, got, ok, want)
			}
		}
	}
}

// lookup returns the sequence number x maps k to.
func lookup(x *freedKeys, k freedKey) (uint64, bool) {
	if i := x.find(k); i >= 0 {
		return x.slots[i].seq1 - 1, true
	}
	return 0, false
}

// TestBlockEnds checks blockEnd and rblockEnd, at every position, against
// a walk to the first entry of another block, on histories whose sequence
// numbers run without gaps, with gaps now and then, and with long jumps.
func TestBlockEnds(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0x3f))
		var f freedLog
		seq := uint64(r.IntN(200))
		for range 2000 {
			switch k := r.IntN(20); {
			case k < 14:
				seq++
			case k < 19:
				seq += uint64(2 + r.IntN(5))
			default:
				seq += uint64(50 + r.IntN(200))
			}
			f.ents = append(f.ents, freedEntry{seq: seq})
			f.rais = append(f.rais, raisedEntry{seq: seq})
		}
		for i := range f.ents {
			want := i + 1
			for want < len(f.ents) && f.ents[want].seq/histBlockLen == f.ents[i].seq/histBlockLen {
				want++
			}
			if got := f.blockEnd(i); got != want {
				t.Fatalf("seed %d: blockEnd(%d) = %d, want %d", seed, i, got, want)
			}
			if got := f.rblockEnd(i); got != want {
				t.Fatalf("seed %d: rblockEnd(%d) = %d, want %d", seed, i, got, want)
			}
		}
	}
}
