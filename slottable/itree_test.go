package slottable

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestIntervalTreeAgainstModel adds, removes, renumbers and shortens or
// lengthens reservations on two hosts until their interval trees are
// thousands of reservations deep (three levels), many of them starting
// together, and empties them again; after each step it compares
// ReservationsOn and LatestEnd with a list of the live reservations, and
// now and then runs Check (which checks the trees' structure, the order
// and every sameNext flag).
func TestIntervalTreeAgainstModel(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 11))
		tab := New()
		for _, n := range []string{"a", "b"} {
			if _, err := tab.AddHost(n, Resources{1 << 40, 1 << 40}); err != nil {
				t.Fatal(err)
			}
		}
		span := int64(50 + rng.IntN(3000)) // few starts: many ties
		live := map[ResID]Reservation{}
		var ids []ResID
		steps := 5000
		for i := range 2 * steps {
			switch r := rng.IntN(10); {
			case i < steps && (r < 6 || len(ids) == 0):
				s := rng.Int64N(span)
				res := Reservation{Host: HostID(rng.IntN(2)), Lease: uint64(rng.IntN(50)),
					Start: at(int(s)), End: at(int(s + 1 + rng.Int64N(40))), Res: Resources{1, 1}}
				id, err := tab.Add(res)
				if err != nil {
					t.Fatal(err)
				}
				res.ID = id
				live[id] = res
				ids = append(ids, id)
			case len(ids) == 0:
			case r < 8 || i >= steps:
				k := rng.IntN(len(ids))
				id := ids[k]
				if err := tab.Remove(id); err != nil {
					t.Fatal(err)
				}
				delete(live, id)
				ids[k] = ids[len(ids)-1]
				ids = ids[:len(ids)-1]
			case r == 8:
				k := rng.IntN(len(ids))
				id := ids[k]
				nid, err := tab.Renumber(id)
				if err != nil {
					t.Fatal(err)
				}
				res := live[id]
				delete(live, id)
				res.ID = nid
				live[nid] = res
				ids[k] = nid
			default:
				id := ids[rng.IntN(len(ids))]
				res := live[id]
				res.End = res.Start.Add(time.Duration(1+rng.Int64N(60)) * time.Second)
				if err := tab.SetEnd(id, res.End); err != nil {
					t.Fatal(err)
				}
				live[id] = res
			}
			if i%97 == 0 || len(ids) < 20 {
				if err := tab.Check(); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, i, err)
				}
			}
			if i%5 == 0 {
				checkIntervals(t, tab, live, rng, span)
			}
		}
		for h := range tab.it.hosts {
			if tr := &tab.it.hosts[h]; tr.root != nilNode || len(tr.free) != len(tr.nodes) {
				t.Fatalf("seed %d: host %d's emptied tree has root %d and %d of %d nodes free", seed, h, tr.root, len(tr.free), len(tr.nodes))
			}
		}
	}
}

func checkIntervals(t *testing.T, tab *Table, live map[ResID]Reservation, rng *rand.Rand, span int64) {
	t.Helper()
	for h := range HostID(2) {
		from := at(int(rng.Int64N(span+50) - 5))
		to := from.Add(time.Duration(1+rng.Int64N(60)) * time.Second)
		var want []ResID
		var latest time.Time
		for id, r := range live {
			if r.Host != h {
				continue
			}
			if r.End.After(latest) {
				latest = r.End
			}
			if r.Start.Before(to) && r.End.After(from) {
				want = append(want, id)
			}
		}
		slices.SortFunc(want, func(a, b ResID) int {
			return cmp.Or(live[a].Start.Compare(live[b].Start), cmp.Compare(a, b))
		})
		var got []ResID
		for _, r := range tab.ReservationsOn(h, from, to) {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("host %d over [%v, %v): reservations %v, want %v", h, from, to, got, want)
		}
		if got := tab.LatestEnd(h); !got.Equal(latest) {
			t.Fatalf("host %d: latest end %v, want %v", h, got, latest)
		}
	}
}
