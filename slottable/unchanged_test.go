package slottable

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestUnchangedFromSound churns a table (reservations added, removed,
// added back as they were, shortened or lengthened, a queue removed and
// added back with some of it moved, history forgotten) and, whenever
// UnchangedFrom or UnchangedFromBut says the table from some time on is
// as it was at a snapshot's mark, requires the same reservations (lease,
// host, interval, resources) ending after that time, the lease's left
// out; and that it says so, and not, often enough to mean something.
func TestUnchangedFromSound(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0x7c4a))
		g := gen{r: r, dims: 2, n: 2 + int(seed%3), unit: time.Second}
		tab := New()
		for range g.n {
			if _, err := tab.AddHost("h", Resources{1 << 40, 1 << 40}); err != nil {
				t.Fatal(err)
			}
		}
		tab.TrackFreed(true)
		live := map[ResID]Reservation{}
		var removed []Reservation
		// after lists the reservations of rs but lease's ending after at.
		after := func(rs map[ResID]Reservation, lease uint64, at time.Time) []string {
			var out []string
			for _, x := range rs {
				if x.Lease != lease && x.End.After(at) {
					out = append(out, fmt.Sprint(x.Lease, x.Host, x.Start.Sub(base), x.End.Sub(base), x.Res))
				}
			}
			slices.Sort(out)
			return out
		}
		type snap struct {
			mark uint64
			rs   map[ResID]Reservation
		}
		var snaps []snap
		same, changed := 0, 0
		for step := range 800 {
			switch k := r.IntN(20); {
			case k < 3:
				res := g.reservation()
				res.Res = Resources{int64(1 + r.IntN(3)), 0}
				id, err := tab.Add(res)
				if err != nil {
					t.Fatal(err)
				}
				live[id] = res
			case k < 5 && len(live) > 0:
				id := anyID(r, live)
				removed = append(removed, live[id])
				delete(live, id)
				if err := tab.Remove(id); err != nil {
					t.Fatal(err)
				}
			case k < 7 && len(removed) > 0:
				i := r.IntN(len(removed))
				id, err := tab.Add(removed[i])
				if err != nil {
					t.Fatal(err)
				}
				live[id] = removed[i]
				removed = slices.Delete(removed, i, i+1)
			case k < 8 && len(live) > 0:
				id := anyID(r, live)
				res := live[id]
				res.End = res.Start.Add(time.Duration(1+r.IntN(20)) * g.unit)
				if err := tab.SetEnd(id, res.End); err != nil {
					t.Fatal(err)
				}
				live[id] = res
			case k < 9: // a queue removed and added back in order, some of it moved
				ids := slices.Sorted(mapsKeys(live))
				var back []Reservation
				for _, id := range ids {
					back = append(back, live[id])
					delete(live, id)
					if err := tab.Remove(id); err != nil {
						t.Fatal(err)
					}
				}
				for _, res := range back {
					if r.IntN(12) == 0 {
						res.Start, res.End = res.Start.Add(g.unit), res.End.Add(g.unit)
					}
					id, err := tab.Add(res)
					if err != nil {
						t.Fatal(err)
					}
					live[id] = res
				}
			case k < 10:
				tab.ForgetFreed(tab.FreedMark() - min(tab.FreedMark(), uint64(r.IntN(40))))
			case k < 12:
				snaps = append(snaps, snap{tab.FreedMark(), maps2(live)})
			default:
				if len(snaps) == 0 {
					continue
				}
				sn := snaps[len(snaps)-1]
				if r.IntN(2) == 0 {
					sn = snaps[r.IntN(len(snaps))]
				}
				at := g.at(r.IntN(85))
				lease, unchanged := anyLease, false
				if r.IntN(2) == 0 {
					lease = uint64(r.IntN(5))
					unchanged = tab.UnchangedFromBut(sn.mark, at, lease)
				} else {
					unchanged = tab.UnchangedFrom(sn.mark, at)
				}
				if !unchanged {
					changed++
					continue
				}
				same++
				if was, now := after(sn.rs, lease, at), after(live, lease, at); !slices.Equal(was, now) {
					t.Fatalf("seed %d step %d: unchanged from %s since mark %d (lease %d left out), but the reservations went from\n%v\nto\n%v",
						seed, step, at.Sub(base), sn.mark, lease, was, now)
				}
			}
		}
		if same < 5 || changed < 5 {
			t.Fatalf("seed %d: unchanged %d times, changed %d times: too few to mean much", seed, same, changed)
		}
	}
	tab := New()
	if tab.UnchangedFrom(tab.FreedMark(), base) {
		t.Fatal("unchanged without a history (TrackFreed off)")
	}
}
