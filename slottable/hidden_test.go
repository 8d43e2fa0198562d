package slottable

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSkipHiddenIsIgnore: a search with SkipHidden answers as the same
// search with an Ignore that reports the hidden reservations (and, with
// an Ignore of its own, as one reporting either), for every kind of
// search (one start, a range, no end; all hosts or some), and so does
// FitCountAt skipping them, on random
// tables whose reservations are added, removed, shortened, hidden and
// shown again, and on copies of them.
func TestSkipHiddenIsIgnore(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0x41dde))
		g := gen{r: r, dims: 2, n: 3, unit: units[seed%2]}
		tab := g.table(t)
		var ids []ResID
		var removed []Reservation
		hidden := map[ResID]bool{}
		for round := range 400 {
			switch k := r.IntN(24); {
			case k < 4 && len(ids) > 0: // hide or show one
				id := ids[r.IntN(len(ids))]
				if !tab.Has(id) {
					continue
				}
				hide := r.IntN(3) > 0
				if err := tab.SetHidden(id, hide); err != nil {
					t.Fatal(err)
				}
				hidden[id] = hide
			case g.churn(t, tab, k-4, &ids, &removed):
			}
			for id := range hidden {
				if !tab.Has(id) {
					delete(hidden, id) // removed: a new one in its slot is not hidden
				}
			}
			if round%50 == 49 {
				tab = tab.Clone() // the copy holds the same hidden set
			}
			for id := range hidden {
				if tab.Hidden(id) != hidden[id] {
					t.Fatalf("seed %d: Hidden(%d) = %v, want %v", seed, id, tab.Hidden(id), hidden[id])
				}
			}
			isHidden := func(res Reservation) bool { return hidden[res.ID] }
			p := g.probe()
			q := Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from, Until: p.until}
			switch r.IntN(3) {
			case 0:
				q.Until = q.From // one start
			case 1:
				q.Until = time.Time{} // no end
			}
			if p.mask != 0 {
				mask := p.mask
				q.Hosts = func(h HostID) bool { return mask&(1<<h) != 0 }
			}
			want := q
			want.Ignore = isHidden
			if own := p.ignore(); own != nil {
				q.Ignore = own
				want.Ignore = func(res Reservation) bool { return isHidden(res) || own(res) }
			}
			q.SkipHidden = true
			gf, gok := tab.EarliestFit(q)
			wf, wok := tab.EarliestFit(want)
			if gok != wok || gok && (!gf.Start.Equal(wf.Start) || !slices.Equal(gf.Counts, wf.Counts)) {
				t.Fatalf("seed %d round %d: SkipHidden gives %v %v, Ignore %v %v", seed, round, gf, gok, wf, wok)
			}
			limit := 1 + r.IntN(5)
			at := Resources{-1, -1}
			if got, want := tab.FitCountAt(p.host, p.from, p.to, p.per, limit, q.Ignore, true, at),
				min(tab.FitCount(p.host, p.from, p.to, p.per, want.Ignore), limit); got != want {
				t.Fatalf("seed %d round %d: FitCountAt skipping hidden = %d, FitCount ignoring them %d", seed, round, got, want)
			}
			if !tab.Closed(p.host) && tab.checkRes(p.per) == nil {
				if u := tab.UsedIgnoring(p.host, p.from, p.from, want.Ignore); !slices.Equal(at, u) {
					t.Fatalf("seed %d round %d: usage at %v is %v skipping hidden, %v ignoring them", seed, round, p.from, at, u)
				}
			}
			var m FitMemo // a memo is not about the table without them
			if mf, mok := tab.EarliestFitMemo(q, 99, &m); mok != wok || mok && !mf.Start.Equal(wf.Start) {
				t.Fatalf("seed %d round %d: EarliestFitMemo with SkipHidden gives %v %v, want %v %v", seed, round, mf, mok, wf, wok)
			}
		}
	}
}

// TestSetHidden: hiding is by reservation, survives a new ID and a copy
// (each side then on its own), ends with the reservation, and an unknown
// ID is an error.
func TestSetHidden(t *testing.T) {
	tab := New()
	for range 2 {
		if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(h HostID, s, e int) ResID {
		id, err := tab.Add(Reservation{Lease: 1, Host: h, Start: base.Add(time.Duration(s) * time.Hour),
			End: base.Add(time.Duration(e) * time.Hour), Res: Resources{100, 1024}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a, b := add(0, 0, 2), add(1, 0, 2)
	if err := tab.SetHidden(a, true); err != nil {
		t.Fatal(err)
	}
	fit := func(tb *Table) time.Time {
		f, ok := tb.EarliestFit(Query{N: 2, Per: Resources{100, 1024}, Duration: time.Hour, From: base, SkipHidden: true})
		if !ok {
			t.Fatal("no fit")
		}
		return f.Start
	}
	// Host 0 is free without a; host 1 from 2 h on: both from 2 h.
	if got := fit(tab); !got.Equal(base.Add(2 * time.Hour)) {
		t.Fatalf("fit at %v, want 2 h", got.Sub(base))
	}
	if err := tab.SetHidden(b, true); err != nil {
		t.Fatal(err)
	}
	if got := fit(tab); !got.Equal(base) {
		t.Fatalf("with both hidden: fit at %v, want 0", got.Sub(base))
	}
	// The same reservation under its new ID stays hidden.
	b2, err := tab.Renumber(b)
	if err != nil || !tab.Hidden(b2) {
		t.Fatalf("renumbered %d to %d (%v): hidden %v", b, b2, err, tab.Hidden(b2))
	}
	c := tab.Clone()
	if err := c.SetHidden(a, false); err != nil {
		t.Fatal(err)
	}
	if !tab.Hidden(a) || c.Hidden(a) || !c.Hidden(b2) {
		t.Fatalf("copy not its own: original a %v, copy a %v, copy b %v", tab.Hidden(a), c.Hidden(a), c.Hidden(b2))
	}
	if err := tab.Remove(a); err != nil {
		t.Fatal(err)
	}
	if n := add(0, 0, 2); tab.Hidden(n) || tab.Hidden(a) {
		t.Fatalf("after removing a: new reservation %d hidden %v, a hidden %v", n, tab.Hidden(n), tab.Hidden(a))
	}
	if err := tab.SetHidden(a, true); !errors.Is(err, ErrUnknownReservation) {
		t.Fatalf("SetHidden of a removed reservation: %v", err)
	}
}
