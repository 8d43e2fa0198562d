package slottable

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestChangedSinceCancels checks the entries that cancel out: with
// reservations of other leases over [10, 20) on host 0 and a memo's mark
// taken after the first (a) and before the second (b): (a) removed and
// added back identical, and (b) added and removed, leave [10, 20)
// unchanged for the mark; (a) removed for good, or added back shorter,
// changes it; and a removal before the mark added back after it changes
// it too (the usage was not there at the mark).
func TestChangedSinceCancels(t *testing.T) {
	at := func(s int) int64 { return toNS(base.Add(time.Duration(s) * time.Second)) }
	r := func(lease uint64, s, e int) Reservation {
		return Reservation{Lease: lease, Host: 0, Start: base.Add(time.Duration(s) * time.Second),
			End: base.Add(time.Duration(e) * time.Second), Res: Resources{100, 0}}
	}
	tab := New()
	if _, err := tab.AddHost("h", Resources{400, 1024}); err != nil {
		t.Fatal(err)
	}
	tab.TrackFreed(true)
	add := func(res Reservation) ResID {
		t.Helper()
		id, err := tab.Add(res)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	rm := func(id ResID) {
		t.Helper()
		if err := tab.Remove(id); err != nil {
			t.Fatal(err)
		}
	}
	a := add(r(1, 10, 20))
	mark := tab.FreedMark()
	b := add(r(2, 12, 18))
	changed := func() bool { return tab.changedSince(mark, 9, at(10), at(20)) }
	if !changed() {
		t.Fatal("unchanged after (b) was added after the mark")
	}
	rm(b)
	if changed() {
		t.Fatal("changed after (b) was added and removed after the mark")
	}
	rm(a)
	if !changed() {
		t.Fatal("unchanged after (a), there at the mark, was removed")
	}
	a = add(r(1, 10, 20))
	if changed() {
		t.Fatal("changed after (a) was removed and added back identical")
	}
	rm(a)
	a = add(r(1, 10, 15))
	if !changed() {
		t.Fatal("unchanged after (a) was added back shorter")
	}
	rm(a)
	a = add(r(1, 10, 20)) // identical to the first (a) again, but that removal is void
	if !changed() {
		// The removal of (a) before the shorter copy was cancelled by it;
		// the shorter copy's removal by this one: nothing pairs them with
		// the first removal, which is counted (conservative).
		t.Log("conservative: counted")
	}
	// A removal before a later mark, added back after it: not there at
	// that mark, there now.
	rm(a)
	mark = tab.FreedMark()
	add(r(1, 10, 20))
	if !changed() {
		t.Fatal("unchanged after (a), absent at the mark, was added back")
	}
	// In a block of the history of its own: (c) added, removed at v, added
	// back and removed again. For the mark v the first removal is after
	// it and cancelled by the Add back, so the last removal counts: (c)
	// was there at v and is not now.
	for tab.FreedMark()%histBlockLen != 0 {
		add(r(5, 50, 60))
	}
	c := add(r(3, 30, 40))
	v := tab.FreedMark()
	rm(c)
	c = add(r(3, 30, 40))
	rm(c)
	if !tab.changedSince(v, 9, at(30), at(40)) {
		t.Fatal("unchanged for a mark at which (c) was there")
	}
	if tab.changedSince(v+1, 9, at(30), at(40)) {
		t.Fatal("changed for a mark at which (c) was not there")
	}
}

// TestChangedSinceSound checks, over random operation sequences (other
// leases' reservations added, removed, added back identical, lengthened
// and shortened, and whole queues removed and added back in order as the
// scheduler does after a fixed lease), that whenever changedSince says
// that nothing changed over [s, e) for a lease since a mark, every host's
// usage without the lease's reservations is, at every tick of [s, e), what
// it was at the mark.
func TestChangedSinceSound(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0xc4a9))
		g := gen{r: r, dims: 2, n: 2 + int(seed%3), unit: time.Second}
		// usage is host h's usage at tick k without lease's reservations.
		usage := func(rs map[ResID]Reservation, lease uint64, h HostID, k int) int64 {
			var u int64
			for _, x := range rs {
				if x.Lease != lease && x.Host == h && !x.Start.After(g.at(k)) && x.End.After(g.at(k)) {
					u += x.Res[0]
				}
			}
			return u
		}
		kept := 0
		historyWalk(t, g, func(step int, tab *Table, live map[ResID]Reservation, mark uint64, was map[ResID]Reservation) {
			lease := uint64(r.IntN(5))
			s := r.IntN(70)
			e := s + 1 + r.IntN(8)
			if tab.changedSince(mark, lease, toNS(g.at(s)), toNS(g.at(e))) {
				return
			}
			kept++
			for h := range HostID(g.n) {
				for k := s; k < e; k++ {
					if then, now := usage(was, lease, h, k), usage(live, lease, h, k); then != now {
						t.Fatalf("seed %d step %d: changedSince(mark %d, lease %d, [%d, %d)) false, but host %d at %d had %d and has %d",
							seed, step, mark, lease, s, e, h, k, then, now)
					}
				}
			}
		})
		if kept == 0 {
			t.Errorf("seed %d: changedSince never said unchanged", seed)
		}
	}
}

func anyID(r *rand.Rand, m map[ResID]Reservation) ResID {
	ids := slices.Sorted(mapsKeys(m))
	return ids[r.IntN(len(ids))]
}

func mapsKeys(m map[ResID]Reservation) func(func(ResID) bool) {
	return func(yield func(ResID) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func maps2(m map[ResID]Reservation) map[ResID]Reservation {
	out := make(map[ResID]Reservation, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestHistoryBlocksSkipOnly checks, over random operation sequences as in
// TestChangedSinceSound, that the block summaries of the histories
// (freedblock.go) change no answer: changedSince and freedStarts give the
// same with them as with a scan of every entry, for marks anywhere in
// the history kept.
func TestHistoryBlocksSkipOnly(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0xb10c))
		g := gen{r: r, dims: 2, n: 2 + int(seed%3), unit: time.Second}
		tab := New()
		for range g.n {
			if _, err := tab.AddHost("h", Resources{6, 1 << 40}); err != nil {
				t.Fatal(err)
			}
		}
		tab.TrackFreed(true)
		live := map[ResID]Reservation{}
		var removed []Reservation
		skipped := 0
		for step := range 1500 {
			switch k := r.IntN(20); {
			case k < 3:
				res := g.reservation()
				res.Res = Resources{int64(1 + r.IntN(2)), 0}
				if id, err := tab.Add(res); err == nil {
					live[id] = res
				}
			case k < 5 && len(live) > 0:
				id := anyID(r, live)
				removed = append(removed, live[id])
				delete(live, id)
				if err := tab.Remove(id); err != nil {
					t.Fatal(err)
				}
			case k < 7 && len(removed) > 0:
				i := r.IntN(len(removed))
				if id, err := tab.Add(removed[i]); err == nil {
					live[id] = removed[i]
				}
				removed = slices.Delete(removed, i, i+1)
			case k < 8 && len(live) > 0:
				id := anyID(r, live)
				res := live[id]
				res.End = res.Start.Add(time.Duration(1+r.IntN(20)) * g.unit)
				if err := tab.SetEnd(id, res.End); err == nil {
					live[id] = res
				}
			case k < 11: // a queue removed and added back in order
				var back []Reservation
				for _, id := range slices.Sorted(mapsKeys(live)) {
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
					if id, err := tab.Add(res); err == nil {
						live[id] = res
					}
				}
			case k < 12:
				tab.ForgetFreed(tab.FreedMark() - min(tab.FreedMark(), uint64(r.IntN(300))))
			default:
				f := &tab.freed
				mark := f.base + uint64(r.IntN(int(f.next-f.base)+1))
				lease := uint64(r.IntN(5))
				s := int64(r.IntN(70))
				e := s + 1 + int64(r.IntN(10))
				q := Query{N: 1 + r.IntN(4), Per: Resources{int64(1 + r.IntN(2)), 0}}
				d := int64(1+r.IntN(10)) * int64(g.unit)
				lo, hi := toNS(g.at(int(s))), toNS(g.at(int(e)))
				gotC := tab.changedSince(mark, lease, lo, hi)
				gotF := tab.freedStarts(q, lease, mark, lo, hi, d, posInf)
				if again := tab.freedStarts(q, lease, mark, lo, hi, d, posInf); !slices.Equal(again, gotF) {
					t.Fatalf("nondeterministic %v %v", gotF, again)
				}
				blocks, rblocks := f.blocks, f.rblocks
				f.blocks, f.rblocks = nil, nil
				wantC := tab.changedSince(mark, lease, lo, hi)
				wantF := tab.freedStarts(q, lease, mark, lo, hi, d, posInf)
				f.blocks, f.rblocks = blocks, rblocks
				if gotC != wantC || !slices.Equal(gotF, wantF) {
					t.Fatalf("seed %d step %d mark %d lease %d [%d, %d): changedSince %v, freedStarts %v with the blocks; %v, %v without",
						seed, step, mark, lease, s, e, gotC, gotF, wantC, wantF)
				}
				for i, end := f.index(mark), 0; i < len(f.ents); i = end {
					if end = f.blockEnd(i); f.skippable(i, end, mark, true, lo, addSat(hi, d)) || f.skippable(i, end, mark, false, lo, hi) {
						skipped++
					}
				}
			}
		}
		if skipped == 0 {
			t.Errorf("seed %d: no block skipped", seed)
		}
	}
}

// TestSkipInOnePass compares skipIn's one pass over ranges in order of
// their first starts (as failsFor returns them) with applying the ranges
// in any order until none moves the start, on random ranges.
func TestSkipInOnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	fixpoint := func(fails []failedRange, d, a, b, lim int64) int64 {
		top := b
		if lim != posInf {
			top = min(top, lim-d)
		}
		for moved := true; moved && a <= b; {
			moved = false
			for _, x := range fails {
				if x.a <= a && a <= x.b && a <= min(x.b, top) {
					a, moved = min(x.b, top)+1, true
				}
			}
		}
		return a
	}
	for range 20000 {
		fails := make([]failedRange, r.IntN(maxFailed+1))
		for i := range fails {
			a := int64(r.IntN(60))
			fails[i] = failedRange{a: a, b: a + int64(r.IntN(12))}
		}
		d, a, b, lim := int64(1+r.IntN(5)), int64(r.IntN(60)), int64(r.IntN(70)), int64(posInf)
		if r.IntN(2) == 0 {
			lim = int64(r.IntN(80))
		}
		want := fixpoint(fails, d, a, b, lim)
		sorted := slices.SortedStableFunc(slices.Values(fails), func(x, y failedRange) int { return cmp.Compare(x.a, y.a) })
		if got := skipIn(sorted, d, a, b, lim); got != want {
			t.Fatalf("skipIn(%v, d %d, [%d, %d], lim %d) = %d, want %d", sorted, d, a, b, lim, got, want)
		}
	}
}
