package slottable

import (
	"math/rand/v2"
	"testing"
)

// TestIDIndexAgainstMap runs random sets and deletions, mostly of recent
// sequential IDs as the table makes them and some of old ones, on an
// idIndex and a map, and requires the same answers, length and contents
// throughout (through several growths and wrapped probe sequences).
func TestIDIndexAgainstMap(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0x1d))
		var x idIndex
		m := map[ResID]int32{}
		next := ResID(0)
		for step := range 20000 {
			switch k := r.IntN(10); {
			case k < 5:
				next++
				v := int32(r.IntN(1 << 20))
				x.set(next, v)
				m[next] = v
			case k < 8 && next > 0:
				id := next - ResID(r.IntN(int(min(next, 50))))
				if r.IntN(4) == 0 {
					id = 1 + ResID(r.IntN(int(next)))
				}
				x.del(id)
				delete(m, id)
			case next > 0:
				id := 1 + ResID(r.IntN(int(next)))
				v := int32(r.IntN(1 << 20))
				if _, ok := m[id]; ok { // overwrite a live one
					x.set(id, v)
					m[id] = v
				}
			}
			id := 1 + ResID(r.IntN(int(next)+1))
			got, gok := x.get(id)
			want, wok := m[id]
			if got != want || gok != wok {
				t.Fatalf("seed %d step %d: get(%d) = %d %v, map %d %v", seed, step, id, got, gok, want, wok)
			}
			if x.len() != len(m) {
				t.Fatalf("seed %d step %d: len %d, map %d", seed, step, x.len(), len(m))
			}
		}
		seen := 0
		x.each(func(k ResID, v int32) {
			seen++
			if m[k] != v {
				t.Fatalf("seed %d: each gives %d -> %d, map %d", seed, k, v, m[k])
			}
		})
		c := x.cloneInto(idIndex{})
		x.set(next+1, 7)
		if seen != len(m) || c.len() != len(m) {
			t.Fatalf("seed %d: each saw %d, clone holds %d, map %d", seed, seen, c.len(), len(m))
		}
		if _, ok := c.get(next + 1); ok {
			t.Fatalf("seed %d: the clone shares the original's entries", seed)
		}
	}
}
