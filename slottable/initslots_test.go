package slottable

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestInitSlots checks, over random tables with removals and moved ends,
// that the walker leaving out a lease's reservations given as slots
// (initSlots, what EarliestFitWithout uses) steps exactly as the one
// asking Ignore about every reservation in its interval: the same times,
// the same usage.
func TestInitSlots(t *testing.T) {
	for _, seed := range seedsFor(t) {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, seed^0x3a1))
		g := gen{r: r, dims: 2, n: 3, unit: units[seed%2]}
		tab := New()
		for _, c := range g.caps() {
			if _, err := tab.AddHost("h", c); err != nil {
				t.Fatal(err)
			}
		}
		var ids []ResID
		for step := range 400 {
			switch k := r.IntN(10); {
			case k < 4:
				if id, err := tab.Add(g.reservation()); err == nil {
					ids = append(ids, id)
				}
			case k < 5 && len(ids) > 0:
				i := r.IntN(len(ids))
				_ = tab.Remove(ids[i])
				ids = slices.Delete(ids, i, i+1)
			case k < 6 && len(ids) > 0:
				res, _ := tab.Get(ids[r.IntN(len(ids))])
				_ = tab.SetEnd(res.ID, res.Start.Add(g.unit*time.Duration(1+r.IntN(20))))
			default:
				h := HostID(r.IntN(g.n))
				f := toNS(g.at(r.IntN(80) - 5))
				e := f + int64(g.unit)*int64(r.IntN(30))
				if r.IntN(8) == 0 {
					e = posInf
				}
				lease := uint64(r.IntN(4))
				var slots []int32
				for _, id := range tab.resOf(lease) {
					slot, _ := tab.byID.get(id)
					slots = append(slots, slot)
				}
				var a, b walker
				a.init(tab, h, f, e, func(res Reservation) bool { return res.Lease == lease })
				b.initSlots(tab, h, f, e, slots)
				for {
					if !slices.Equal(a.usage, b.usage) || a.at != b.at {
						t.Fatalf("step %d: walker without lease %d at %d %v, from its slots at %d %v",
							step, lease, a.at, a.usage, b.at, b.usage)
					}
					an, bn := a.next(), b.next()
					if an != bn {
						t.Fatalf("step %d: walkers end apart", step)
					}
					if !an {
						break
					}
				}
			}
		}
	}
}
