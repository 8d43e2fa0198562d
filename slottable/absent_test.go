package slottable

import (
	"slices"
	"testing"
	"time"
)

// TestFreedAbsentAtMark checks that a memo does not search where usage
// was freed that was not in the table when the memo was made (added after
// it, or removed before it and added back after), and still does where it
// was. One host of one VM, busy over [0, 10) by lease 1; reservation R of
// lease 2 over [10, 30); a memo of lease 9 (one VM for 5 s) made at mark,
// between the steps before and after; the freed starts asked for [1, 40].
func TestFreedAbsentAtMark(t *testing.T) {
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	ns := func(s int) int64 { return toNS(at(s)) }
	r := Reservation{Lease: 2, Host: 0, Start: at(10), End: at(30), Res: Resources{100, 1024}}
	type op func(tab *Table, id *ResID) error
	add := func(tab *Table, id *ResID) (err error) { *id, err = tab.Add(r); return err }
	remove := func(tab *Table, id *ResID) error { return tab.Remove(*id) }
	shorten := func(tab *Table, id *ResID) error { return tab.SetEnd(*id, at(20)) }
	// R freed over [10, 30): starts t with [t, t+5) overlapping it are
	// those in (5, 30), and the host holds the VM from 10 on: [10, 30)
	// (to the last nanosecond). Shortened to 20: [20, 30) freed, starts
	// in (15, 30), but R holds the host until 20: [20, 30).
	whole, tail := [][2]int64{{ns(10), ns(30) - 1}}, [][2]int64{{ns(20), ns(30) - 1}}
	for _, c := range []struct {
		name          string
		before, after []op
		want          [][2]int64
	}{
		{"added after the mark, then removed", nil, []op{add, remove}, nil},
		{"there at the mark, removed", []op{add}, []op{remove}, whole},
		{"removed before the mark, added back after, removed", []op{add, remove}, []op{add, remove}, nil},
		{"there at the mark, removed, added back, removed", []op{add}, []op{remove, add, remove}, whole},
		{"added after the mark, then shortened", nil, []op{add, shorten}, nil},
		{"there at the mark, shortened", []op{add}, []op{shorten}, tail},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := New()
			if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
				t.Fatal(err)
			}
			tab.TrackFreed(true)
			if _, err := tab.Add(Reservation{Lease: 1, Host: 0, Start: at(0), End: at(10), Res: Resources{100, 1024}}); err != nil {
				t.Fatal(err)
			}
			var id ResID
			for _, f := range c.before {
				if err := f(tab, &id); err != nil {
					t.Fatal(err)
				}
			}
			mark := tab.FreedMark()
			for _, f := range c.after {
				if err := f(tab, &id); err != nil {
					t.Fatal(err)
				}
			}
			q := Query{N: 1, Per: Resources{100, 1024}, Duration: 5 * time.Second, From: at(1)}
			got := tab.freedStarts(q, 9, mark, ns(1), ns(40), int64(q.Duration), posInf)
			if !slices.Equal(got, c.want) {
				t.Fatalf("freed starts = %v, want %v", got, c.want)
			}
		})
	}
}

// TestHolds checks that Holds tells a memo whose history is kept from one
// whose history was forgotten, or that holds no answer.
func TestHolds(t *testing.T) {
	tab := New()
	if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	tab.TrackFreed(true)
	var m FitMemo
	if tab.Holds(&m) {
		t.Fatal("an empty memo holds an answer")
	}
	q := Query{N: 1, Per: Resources{100, 1024}, Duration: time.Second, From: base}
	if _, ok := tab.EarliestFitMemo(q, 9, &m); !ok {
		t.Fatal("no fit on an empty host")
	}
	if !tab.Holds(&m) {
		t.Fatal("a fresh memo does not hold its answer")
	}
	id, err := tab.Add(Reservation{Lease: 1, Host: 0, Start: base, End: base.Add(time.Minute), Res: Resources{100, 1024}})
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Holds(&m) {
		t.Fatal("a change after the memo made it useless")
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	tab.ForgetFreed(tab.FreedMark())
	if tab.Holds(&m) {
		t.Fatal("a memo older than the history kept holds its answer")
	}
}

// TestChangesBetween checks the count of change points strictly between
// two times against NextChangeAfter's walk. Reservations over [10, 20)
// on host 0 and [15, 30) on host 1, and one of zero size over [12, 40)
// (no change point): the change points are 10, 15, 20 and 30.
func TestChangesBetween(t *testing.T) {
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	tab := New()
	for range 2 {
		if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []Reservation{
		{Lease: 1, Host: 0, Start: at(10), End: at(20), Res: Resources{100, 0}},
		{Lease: 2, Host: 1, Start: at(15), End: at(30), Res: Resources{50, 0}},
		{Lease: 3, Host: 1, Start: at(12), End: at(40), Res: Resources{0, 0}},
	} {
		if _, err := tab.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ a, b, want int }{
		{0, 100, 4}, // 10, 15, 20, 30
		{10, 30, 2}, // 15, 20: both ends left out
		{9, 11, 1},  // 10
		{15, 15, 0}, // empty
		{20, 15, 0}, // reversed
		{30, 100, 0},
	} {
		if got := tab.ChangesBetween(at(c.a), at(c.b)); got != c.want {
			t.Errorf("ChangesBetween(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
		walk := 0
		for x, ok := tab.NextChangeAfter(at(c.a)); ok && x.Before(at(c.b)); x, ok = tab.NextChangeAfter(x) {
			walk++
		}
		if walk != c.want {
			t.Errorf("NextChangeAfter walk over (%d, %d) = %d, want %d", c.a, c.b, walk, c.want)
		}
	}
}
