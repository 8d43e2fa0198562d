package slottable

import (
	"testing"
	"time"
)

// TestRoomOver checks the room shared by the questions at one instant
// against sums worked out by hand, and that it follows the table.
func TestRoomOver(t *testing.T) {
	tab := New()
	for _, n := range []string{"a", "b", "c"} {
		mustAddHost(t, tab, n, res(400, 4096))
	}
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	add := func(h HostID, s, e int, cpu int64) ResID {
		return mustAdd(t, tab, Reservation{Lease: uint64(h) + 1, Host: h, Start: at(s), End: at(e), Res: res(cpu, 0)})
	}
	add(0, 0, 10, 300) // host a: 1 VM of 100 cores over [0, 10), 4 after
	add(1, 5, 20, 200) // host b: 4 over [0, 5), 2 over [5, 20), 4 after
	if err := tab.SetClosed(2, true); err != nil {
		t.Fatal(err)
	}
	per := res(100, 0)
	from := at(0).UnixNano()
	room := func(d time.Duration) int64 { return tab.roomOver(from, int64(d), per) }
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{1, 1 + 4},                 // an instant
		{5 * time.Second, 1 + 4},   // [0, 5): b's fall at 5 is not in it
		{5*time.Second + 1, 1 + 2}, // b's least is 2 from 5 on
		{30 * time.Second, 1 + 2},  // the counts that rise later do not count
		{time.Duration(posInf), 3}, // for good
	} {
		if got := room(c.d); got != c.want {
			t.Errorf("room over [0, %v) = %d, want %d", c.d, got, c.want)
		}
	}
	q := Query{N: 4, Per: per, Duration: 10 * time.Second, From: at(0), Until: at(0)}
	if !tab.noRoomAt(&q, from) {
		t.Errorf("4 VMs for 10 s at 0: room 3, want no room")
	}
	if _, ok := tab.EarliestFit(q); ok {
		t.Errorf("EarliestFit of 4 VMs for 10 s at 0 fitted; only 3 fit")
	}
	q.N = 3
	if tab.noRoomAt(&q, from) {
		t.Errorf("3 VMs for 10 s at 0: room 3, want room")
	}
	fit, ok := tab.EarliestFit(q)
	if !ok || !sameFit(fit, Fit{Start: at(0), Counts: []HostCount{{0, 1}, {1, 2}}}) {
		t.Errorf("EarliestFit of 3 VMs for 10 s at 0 = %v %v, want a:1 b:2", fit, ok)
	}

	// The table changes: the room follows.
	if err := tab.SetClosed(2, false); err != nil {
		t.Fatal(err)
	}
	if got := room(10 * time.Second); got != 1+2+4 {
		t.Errorf("host c opened: room = %d, want 7", got)
	}
	id := add(2, 2, 4, 400)
	if got := room(10 * time.Second); got != 1+2+0 {
		t.Errorf("host c full over [2, 4): room = %d, want 3", got)
	}
	if got := room(2 * time.Second); got != 1+4+4 {
		t.Errorf("over [0, 2): room = %d, want 9", got)
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	if got := room(10 * time.Second); got != 7 {
		t.Errorf("host c's reservation removed: room = %d, want 7", got)
	}
	if err := tab.SetCapacity(0, res(800, 4096)); err != nil {
		t.Fatal(err)
	}
	if got := room(10 * time.Second); got != 5+2+4 {
		t.Errorf("host a doubled: room = %d, want 11", got)
	}
	// Another instant: from 10 on, a holds 8, b 2 until 20.
	if got := tab.roomOver(at(10).UnixNano(), int64(time.Second), per); got != 8+2+4 {
		t.Errorf("room at 10 = %d, want 14", got)
	}
	// A copy answers for itself.
	c := tab.Clone()
	add(1, 0, 100, 400)
	if got, want := c.roomOver(from, int64(time.Second), per), int64(5+4+4); got != want {
		t.Errorf("copy's room = %d, want %d (the original's change is not the copy's)", got, want)
	}
	if got := room(time.Second); got != 5+0+4 {
		t.Errorf("b full: room = %d, want 9", got)
	}
}

// TestNoRoomAtLeavesOut checks that a question that leaves reservations
// out, or skips the hidden ones, is never answered from the shared room
// (which counts every reservation).
func TestNoRoomAtLeavesOut(t *testing.T) {
	tab := New()
	mustAddHost(t, tab, "a", res(100, 4096))
	at := base
	id := mustAdd(t, tab, Reservation{Lease: 7, Host: 0, Start: at, End: at.Add(time.Hour), Res: res(100, 0)})
	q := Query{N: 1, Per: res(100, 0), Duration: time.Minute, From: at, Until: at}
	if !tab.noRoomAt(&q, at.UnixNano()) {
		t.Fatalf("host full: want no room")
	}
	q.Ignore = lease7
	if tab.noRoomAt(&q, at.UnixNano()) {
		t.Errorf("with lease 7 left out: answered from the shared room")
	}
	if _, ok := tab.EarliestFit(q); !ok {
		t.Errorf("with lease 7 left out the host is empty: want a fit")
	}
	q.Ignore = nil
	if err := tab.SetHidden(id, true); err != nil {
		t.Fatal(err)
	}
	q.SkipHidden = true
	if tab.noRoomAt(&q, at.UnixNano()) {
		t.Errorf("skipping hidden: answered from the shared room")
	}
	if _, ok := tab.EarliestFit(q); !ok {
		t.Errorf("skipping the hidden reservation the host is empty: want a fit")
	}
}
