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
			if step%97 == 0 {
				x.shrink() // ForgetFreed's, after takings
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

// TestFreedKeysShrink: 5,000 keys, all but 100 taken: shrink leaves 512
// slots (a quarter full at most) holding the 100, the others gone; a
// shrink with more than a sixteenth full changes nothing; the keys set
// after it grow the room again.
func TestFreedKeysShrink(t *testing.T) {
	var x freedKeys
	k := func(i int) freedKey {
		return freedKey{lease: uint64(i), host: HostID(i % 7), s: int64(i), e: int64(i) + 10}
	}
	for i := range 5000 {
		x.set(k(i), uint64(i))
	}
	for i := 100; i < 5000; i++ {
		if _, ok := x.takeBefore(k(i), ^uint64(0)); !ok {
			t.Fatalf("key %d not taken", i)
		}
	}
	if len(x.slots) != 8192 {
		t.Fatalf("%d slots before shrinking, want 8192", len(x.slots))
	}
	x.shrink()
	if len(x.slots) != 512 || x.len() != 100 {
		t.Fatalf("after shrinking: %d slots, %d keys; want 512, 100", len(x.slots), x.len())
	}
	x.shrink()
	if len(x.slots) != 512 {
		t.Fatalf("a second shrink: %d slots, want 512", len(x.slots))
	}
	for i := range 5000 {
		seq, ok := lookup(&x, k(i))
		if ok != (i < 100) || ok && seq != uint64(i) {
			t.Fatalf("key %d after shrinking: %d %v", i, seq, ok)
		}
	}
	for i := 5000; i < 6000; i++ {
		x.set(k(i), uint64(i))
	}
	if x.len() != 1100 || len(x.slots) != 2048 {
		t.Fatalf("after 1,000 more: %d keys in %d slots; want 1100 in 2048", x.len(), len(x.slots))
	}
	for i := 5000; i < 6000; i++ {
		if seq, ok := lookup(&x, k(i)); !ok || seq != uint64(i) {
			t.Fatalf("key %d: %d %v", i, seq, ok)
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
