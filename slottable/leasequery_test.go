package slottable

import (
	"testing"
	"time"
)

// TestLeaseQueries: ReservedAs and LeaseOverlaps read a reservation's host
// and interval as added, and follow SetEnd, Renumber and Remove.
func TestLeaseQueries(t *testing.T) {
	tab := New()
	a, _ := tab.AddHost("a", Resources{400, 4096})
	b, _ := tab.AddHost("b", Resources{400, 4096})
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	id, err := tab.Add(Reservation{Lease: 7, Host: b, Start: at(10), End: at(20), Res: Resources{100, 1024}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Add(Reservation{Lease: 8, Host: a, Start: at(0), End: at(60), Res: Resources{100, 1024}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h          HostID
		start, end int
		want       bool
	}{{b, 10, 20, true}, {a, 10, 20, false}, {b, 11, 20, false}, {b, 10, 21, false}} {
		if got := tab.ReservedAs(id, c.h, at(c.start), at(c.end)); got != c.want {
			t.Errorf("ReservedAs(host %d, [%d, %d)) = %v, want %v", c.h, c.start, c.end, got, c.want)
		}
	}
	for _, c := range []struct {
		from, to int
		want     bool
	}{{0, 10, false}, {0, 11, true}, {19, 30, true}, {20, 30, false}, {12, 14, true}, {15, 15, true}} { // an empty interval inside counts, as in EachOverlapping
		if got := tab.LeaseOverlaps(7, at(c.from), at(c.to)); got != c.want {
			t.Errorf("LeaseOverlaps(7, [%d, %d)) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if err := tab.SetEnd(id, at(30)); err != nil {
		t.Fatal(err)
	}
	if !tab.ReservedAs(id, b, at(10), at(30)) || !tab.LeaseOverlaps(7, at(25), at(26)) {
		t.Error("SetEnd to 30 not followed")
	}
	nid, err := tab.Renumber(id)
	if err != nil {
		t.Fatal(err)
	}
	if tab.ReservedAs(id, b, at(10), at(30)) || !tab.ReservedAs(nid, b, at(10), at(30)) {
		t.Error("Renumber not followed")
	}
	if err := tab.Remove(nid); err != nil {
		t.Fatal(err)
	}
	if tab.ReservedAs(nid, b, at(10), at(30)) || tab.LeaseOverlaps(7, at(0), at(100)) || !tab.LeaseOverlaps(8, at(0), at(1)) {
		t.Error("Remove not followed")
	}
}
