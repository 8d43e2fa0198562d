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
		same, changed := 0, 0
		historyWalk(t, g, func(step int, tab *Table, live map[ResID]Reservation, mark uint64, was map[ResID]Reservation) {
			at := g.at(r.IntN(85))
			lease, unchanged := anyLease, false
			if r.IntN(2) == 0 {
				lease = uint64(r.IntN(5))
				unchanged = tab.UnchangedFromBut(mark, at, lease)
			} else {
				unchanged = tab.UnchangedFrom(mark, at)
			}
			if !unchanged {
				changed++
				return
			}
			same++
			if then, now := after(was, lease, at), after(live, lease, at); !slices.Equal(then, now) {
				t.Fatalf("seed %d step %d: unchanged from %s since mark %d (lease %d left out), but the reservations went from\n%v\nto\n%v",
					seed, step, at.Sub(base), mark, lease, then, now)
			}
		})
		if same < 5 || changed < 5 {
			t.Fatalf("seed %d: unchanged %d times, changed %d times: too few to mean much", seed, same, changed)
		}
	}
	tab := New()
	if tab.UnchangedFrom(tab.FreedMark(), base) {
		t.Fatal("unchanged without a history (TrackFreed off)")
	}
}

// historyWalk builds a table of g.n hosts with its history on and
// changes it for 800 steps: historyChurn, the history forgotten now and
// then (ForgetFreed), snapshots of its reservations with the mark; the
// other steps call check with the table, its reservations and a
// snapshot (the latest, or any).
func historyWalk(t *testing.T, g gen, check func(step int, tab *Table, live map[ResID]Reservation, mark uint64, was map[ResID]Reservation)) {
	t.Helper()
	r := g.r
	tab := New()
	for range g.n {
		if _, err := tab.AddHost("h", Resources{1 << 40, 1 << 40}); err != nil {
			t.Fatal(err)
		}
	}
	tab.TrackFreed(true)
	live := map[ResID]Reservation{}
	var removed []Reservation
	type snap struct {
		mark uint64
		rs   map[ResID]Reservation
	}
	var snaps []snap
	for step := range 800 {
		switch k := r.IntN(20); {
		case historyChurn(t, tab, g, k, live, &removed):
		case k < 12:
			tab.ForgetFreed(tab.FreedMark() - min(tab.FreedMark(), uint64(r.IntN(40))))
		case k < 14:
			snaps = append(snaps, snap{tab.FreedMark(), maps2(live)})
		default:
			if len(snaps) == 0 {
				continue
			}
			sn := snaps[len(snaps)-1]
			if r.IntN(2) == 0 {
				sn = snaps[r.IntN(len(snaps))]
			}
			check(step, tab, live, sn.mark, sn.rs)
		}
	}
}

// historyChurn changes tab at random for k (drawn in [0, 20)) below 11,
// keeping live (the reservations in it) and removed (those taken out)
// up to date: adds a reservation (k < 3), removes one (k < 5), adds a
// removed one back as it was (k < 7), moves an end (k < 8), or removes
// the whole queue and adds it back in order, one in twelve moved by a
// unit; it reports whether k was one of those.
func historyChurn(tb testing.TB, tab *Table, g gen, k int, live map[ResID]Reservation, removed *[]Reservation) bool {
	tb.Helper()
	r := g.r
	switch {
	case k < 3:
		res := g.reservation()
		res.Res = Resources{int64(1 + r.IntN(3)), 0}
		id, err := tab.Add(res)
		if err != nil {
			tb.Fatal(err)
		}
		live[id] = res
	case k < 5 && len(live) > 0:
		id := anyID(r, live)
		*removed = append(*removed, live[id])
		delete(live, id)
		if err := tab.Remove(id); err != nil {
			tb.Fatal(err)
		}
	case k < 7 && len(*removed) > 0:
		i := r.IntN(len(*removed))
		id, err := tab.Add((*removed)[i])
		if err != nil {
			tb.Fatal(err)
		}
		live[id] = (*removed)[i]
		*removed = slices.Delete(*removed, i, i+1)
	case k < 8 && len(live) > 0:
		id := anyID(r, live)
		res := live[id]
		res.End = res.Start.Add(time.Duration(1+r.IntN(20)) * g.unit)
		if err := tab.SetEnd(id, res.End); err != nil {
			tb.Fatal(err)
		}
		live[id] = res
	case k < 11: // a queue removed and added back in order, some of it moved
		ids := slices.Sorted(mapsKeys(live))
		var back []Reservation
		for _, id := range ids {
			back = append(back, live[id])
			delete(live, id)
			if err := tab.Remove(id); err != nil {
				tb.Fatal(err)
			}
		}
		for _, res := range back {
			if r.IntN(12) == 0 {
				res.Start, res.End = res.Start.Add(g.unit), res.End.Add(g.unit)
			}
			id, err := tab.Add(res)
			if err != nil {
				tb.Fatal(err)
			}
			live[id] = res
		}
	default:
		return false
	}
	return true
}
