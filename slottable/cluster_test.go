package slottable

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestClusterStarts drives a table through random changes (reservations
// added within capacity, removed, shortened and lengthened, hosts closed
// and opened, resized below their usage and back) and checks, after each,
// that the open hosts' usage added up is the profile rebuilt from
// scratch, that EarliestFit gives what a copy keeping no profile gives,
// and that clusterStarts gives, for a random question (with or
// without the asking lease's own reservations left out), exactly the
// starts at which the summed room holds over the whole interval, worked
// out instant by instant from the reservations, and never leaves out a
// start at which the lease fits host by host.
func TestClusterStarts(t *testing.T) {
	at := func(ns int64) time.Time { return base.Add(time.Duration(ns)) }
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, seed^0xc1))
		tab := New()
		tab.SetChecking(true)
		nh := 1 + r.IntN(8)
		for h := range nh {
			if _, err := tab.AddHost(fmt.Sprint("h", h), Resources{int64(400 + 100*r.IntN(9)), 4096}); err != nil {
				t.Fatal(err)
			}
		}
		tab.TrackFreed(true)
		var ids []ResID
		const own = 7       // the asking lease
		const horizon = 300 // reservations start before it: some 200 change points, several blocks
		for step := range 400 {
			switch k := r.IntN(12); {
			case k < 7: // a reservation where it fits; a third of them the asking lease's
				s := int64(r.IntN(horizon))
				lease := uint64(1 + r.IntN(6))
				if r.IntN(3) == 0 {
					lease = own
				}
				id, err := tab.Add(Reservation{Lease: lease, Host: HostID(r.IntN(nh)), Start: at(s), End: at(s + 1 + int64(r.IntN(40))),
					Res: Resources{int64(100 * (1 + r.IntN(3))), int64(512 * r.IntN(3))}})
				if err == nil {
					ids = append(ids, id)
				}
			case k < 9 && len(ids) > 0:
				i := r.IntN(len(ids))
				if err := tab.Remove(ids[i]); err != nil {
					t.Fatal(err)
				}
				ids = slices.Delete(ids, i, i+1)
			case k < 10 && len(ids) > 0:
				id := ids[r.IntN(len(ids))]
				rv, _ := tab.Get(id)
				_ = tab.SetEnd(id, rv.Start.Add(time.Duration(1+r.IntN(40)))) // refused when over capacity
			case k < 11:
				h := HostID(r.IntN(nh))
				if err := tab.SetClosed(h, !tab.Closed(h)); err != nil {
					t.Fatal(err)
				}
			default: // resized, at times below what it holds
				h := HostID(r.IntN(nh))
				if err := tab.SetCapacity(h, Resources{int64(100 * (1 + r.IntN(6))), 4096}); err != nil {
					t.Fatal(err)
				}
			}
			if d := clusterDiff(tab); d != "" {
				t.Fatalf("seed %d step %d: %s", seed, step, d)
			}
			q := Query{N: 1 + r.IntN(4), Per: Resources{int64(100 * (1 + r.IntN(2))), int64(512 * r.IntN(2))}}
			d := int64(1 + r.IntN(20))
			from := toNS(base) + int64(r.IntN(horizon)) // the table's times: nanoseconds
			last := from + int64(r.IntN(horizon/2))
			withOwn := r.IntN(2) == 0
			// EarliestFit, which sweeps from the first start the profile
			// allows, gives what a copy keeping no profile gives.
			eq := q
			eq.Duration, eq.From = time.Duration(d), fromNS(from, time.UTC)
			if r.IntN(2) == 0 {
				eq.Until = fromNS(last, time.UTC)
			}
			plain := tab.Clone()
			wantFit, wantOK := plain.EarliestFit(eq)
			gotFit, gotOK := tab.EarliestFit(eq)
			if gotOK != wantOK || !gotFit.Start.Equal(wantFit.Start) || !slices.Equal(gotFit.Counts, wantFit.Counts) {
				t.Fatalf("seed %d step %d: EarliestFit(%+v) = %v %v, without the profile %v %v", seed, step, eq, gotFit, gotOK, wantFit, wantOK)
			}
			ownFrom, held := int64(posInf), []int64(nil)
			if withOwn {
				held = make([]int64, 2)
				ownFrom = tab.ownHeld(own, held)
			}
			got := tab.clusterStarts(&q, ownFrom, held, from, last, d, maxClusterRanges, nil)
			in := func(s int64) bool {
				for _, g := range got {
					if g[0] <= s && s <= g[1] {
						return true
					}
				}
				return false
			}
			overbooked := false
			for h := range nh {
				if tab.Closed(HostID(h)) {
					continue
				}
				for k := range 2 {
					if tab.peak[h*2+k] > tab.capv[h*2+k] {
						overbooked = true
					}
				}
			}
			room := tab.summedRoom(q, own, withOwn, from, last+d)
			for s := from; s <= last; s++ {
				sum := !overbooked && !slices.Contains(room[s-from:s-from+d], false)
				if overbooked {
					sum = true // the profile tells nothing
				}
				if (len(got) < maxClusterRanges || s < got[len(got)-1][0]) && sum != in(s) {
					t.Fatalf("seed %d step %d: start %d in %v is %v, want %v (query %+v d %d own %v)",
						seed, step, s, got, in(s), sum, q, d, withOwn)
				}
				if in(s) {
					continue
				}
				var ignore func(Reservation) bool
				if withOwn {
					ignore = func(r Reservation) bool { return r.Lease == own }
				}
				n := 0
				for h := range nh {
					if !tab.Closed(HostID(h)) {
						n += tab.FitCount(HostID(h), fromNS(s, time.UTC), fromNS(s+d, time.UTC), q.Per, ignore)
					}
				}
				if n >= q.N {
					t.Fatalf("seed %d step %d: start %d fits %d VMs host by host, but not in %v", seed, step, s, n, got)
				}
			}
		}
	}
}

// summedRoom is the model of clusterStarts' test, instant by instant over
// [from, to): whether the open hosts' capacity less their usage, added
// up, holds q.N VMs of q.Per in every dimension q.Per uses. With own, the
// lease's own reservations are counted free from the first of them on
// (what they hold, all of it, whether they overlap the instant or not).
func (t *Table) summedRoom(q Query, lease uint64, own bool, from, to int64) []bool {
	ownFrom, ownRes := int64(posInf), make([]int64, t.Dims())
	if own {
		for _, id := range t.resOf(lease) {
			slot, _ := t.byID.get(id)
			ownFrom = min(ownFrom, t.it.nodes[slot].start)
			for k, x := range t.rs[slot].Res {
				ownRes[k] += x
			}
		}
	}
	var out []bool
	for x := from; x < to; x++ {
		room := make([]int64, t.Dims())
		for h := range t.hosts {
			if t.Closed(HostID(h)) {
				continue
			}
			for k, c := range t.hosts[h].Capacity {
				room[k] += c
			}
			t.eachOn(HostID(h), x, x+1, func(r Reservation) {
				for k, v := range r.Res {
					room[k] -= v
				}
			})
		}
		ok := true
		for k, per := range q.Per {
			extra := int64(0)
			if x >= ownFrom {
				extra = ownRes[k]
			}
			if per > 0 && room[k]+extra < int64(q.N)*per {
				ok = false
			}
		}
		out = append(out, ok)
	}
	return out
}

// TestGoodStarts checks goodStarts on profiles of hundreds of change
// points (many blocks, passed over whole where they can be) against the
// step function worked out instant by instant, with the threshold raised
// from a random instant on.
func TestGoodStarts(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, seed^0x900d))
		p := &clusterProfile{dims: 2}
		const span = 1500
		deltas := map[int64][2]int64{}
		for range 50 + r.IntN(600) {
			key := int64(r.IntN(span))
			dv := [2]int64{int64(r.IntN(7) - 3), int64(r.IntN(5) - 2)}
			p.add(key, dv[:], 1)
			dd := deltas[key]
			dd[0], dd[1] = dd[0]+dv[0], dd[1]+dv[1]
			deltas[key] = dd
		}
		if r.IntN(2) == 0 { // some taken out again
			for key, dv := range deltas {
				if r.IntN(3) == 0 {
					p.add(key, dv[:], -1)
					delete(deltas, key)
				}
			}
		}
		if seed%2 == 0 { // the blocks' prefix sums worked out: passed over whole where they can be
			p.refresh()
		}
		usage := make([][2]int64, span+40)
		var u [2]int64
		for x := range int64(len(usage)) {
			dv := deltas[x]
			u[0], u[1] = u[0]+dv[0], u[1]+dv[1]
			usage[x] = u
		}
		for range 40 {
			lim := []int64{int64(r.IntN(12) - 4), int64(r.IntN(12) - 4)}
			if r.IntN(3) == 0 {
				lim[1] = 1 << 60 // a dimension that does not count
			}
			extra := []int64{int64(r.IntN(6)), int64(r.IntN(6))}
			raiseAt := int64(r.IntN(span + 20))
			if r.IntN(4) == 0 {
				raiseAt = posInf
			}
			d := int64(1 + r.IntN(30))
			if r.IntN(3) == 0 { // longer than blocks: passed over by their tail
				d = int64(1 + r.IntN(400))
			}
			from := int64(r.IntN(span))
			last := from + int64(r.IntN(span))
			most := 1 + r.IntN(maxClusterRanges)
			got := p.goodStarts(from, last, d, lim, extra, raiseAt, most, nil)
			good := func(x int64) bool {
				if x >= int64(len(usage)) {
					x = int64(len(usage)) - 1 // no change point past the span
				}
				for k := range 2 {
					th := lim[k]
					if x >= raiseAt {
						th += extra[k]
					}
					if usage[x][k] > th {
						return false
					}
				}
				return true
			}
			var want [][2]int64
			bad := 0 // instants without room in [s, s+d)
			for x := from; x < from+d; x++ {
				if !good(x) {
					bad++
				}
			}
			for s := from; s <= last; s, bad = s+1, bad+b2i(!good(s+d))-b2i(!good(s)) {
				if bad > 0 {
					continue
				}
				if n := len(want); n > 0 && want[n-1][1] == s-1 {
					want[n-1][1] = s
				} else {
					want = append(want, [2]int64{s, s})
				}
			}
			if len(want) >= most { // the last runs on to last
				want = want[:most]
				want[most-1][1] = last
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: goodStarts(%d, %d, d %d, lim %v, extra %v from %d) = %v, want %v",
					seed, from, last, d, lim, extra, raiseAt, got, want)
			}
		}
	}
}

// clusterDiff says how tab's profile of the open hosts' usage differs
// from what it should be (checkCluster), "" when it does not.
func clusterDiff(tab *Table) string {
	if err := tab.checkCluster(); err != nil {
		return err.Error()
	}
	return ""
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
