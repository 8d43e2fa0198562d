package slottable

import (
	"math"
	"slices"
	"testing"
	"time"
)

// fixture builds the small table most unit tests use:
//
//	host a: 400 cpu / 4096 MB   r1 [0,10) 200/1024 lease 1
//	                            r2 [5,20) 100/512  lease 2
//	host b: 800 cpu / 8192 MB   r3 [10,30) 800/2048 lease 1
//	                            r4 [30,40) 400/4096 lease 3
func fixture(t *testing.T) (*Table, [5]ResID) {
	t.Helper()
	tab := New()
	a := mustAddHost(t, tab, "a", res(400, 4096))
	b := mustAddHost(t, tab, "b", res(800, 8192))
	var ids [5]ResID
	ids[1] = mustAdd(t, tab, Reservation{Lease: 1, Host: a, Start: at(0), End: at(10), Res: res(200, 1024)})
	ids[2] = mustAdd(t, tab, Reservation{Lease: 2, Host: a, Start: at(5), End: at(20), Res: res(100, 512)})
	ids[3] = mustAdd(t, tab, Reservation{Lease: 1, Host: b, Start: at(10), End: at(30), Res: res(800, 2048)})
	ids[4] = mustAdd(t, tab, Reservation{Lease: 3, Host: b, Start: at(30), End: at(40), Res: res(400, 4096)})
	if err := tab.Check(); err != nil {
		t.Fatalf("fixture: Check() = %v", err)
	}
	return tab, ids
}

func TestNewAndHosts(t *testing.T) {
	tab := New("disk", "net")
	if got, want := tab.ResourceNames(), []string{"cpu", "memory", "disk", "net"}; !slices.Equal(got, want) {
		t.Errorf("ResourceNames() = %v, want %v", got, want)
	}
	if tab.Dims() != 4 {
		t.Errorf("Dims() = %d, want 4", tab.Dims())
	}
	c := res(100, 200, 300, 400)
	h0 := mustAddHost(t, tab, "x", c)
	h1 := mustAddHost(t, tab, "y", res(1, 2, 3, 4))
	c[0] = 999 // the table keeps its own copy
	if h0 != 0 || h1 != 1 || tab.NumHosts() != 2 {
		t.Fatalf("IDs %d %d, NumHosts %d; want 0 1 2", h0, h1, tab.NumHosts())
	}
	h, ok := tab.Host(h0)
	if !ok || h.Name != "x" || !slices.Equal(h.Capacity, res(100, 200, 300, 400)) {
		t.Errorf("Host(0) = %+v %v", h, ok)
	}
	h.Capacity[0] = 5 // nor does the caller's copy write through
	if hs := tab.Hosts(); len(hs) != 2 || hs[0].Capacity[0] != 100 || hs[1].Name != "y" {
		t.Errorf("Hosts() = %+v", hs)
	}
	if _, ok := tab.Host(2); ok {
		t.Errorf("Host(2) found a host that does not exist")
	}
}

func TestUsedAndAvailable(t *testing.T) {
	tab, _ := fixture(t)
	cases := []struct {
		name     string
		host     HostID
		from, to int
		want     Resources
	}{
		{"a over both", 0, 0, 20, res(300, 1536)},       // r1+r2 on [5,10)
		{"a after r1", 0, 10, 20, res(100, 512)},        // r2 only
		{"a before r2", 0, 0, 5, res(200, 1024)},        // r1 only
		{"a idle after", 0, 20, 30, res(0, 0)},          // r2 ends at 20
		{"a before all", 0, -5, 0, res(0, 0)},           // r1 starts at 0, excluded
		{"a last second", 0, 9, 10, res(300, 1536)},     // both at 9
		{"a empty = instant", 0, 10, 10, res(100, 512)}, // at 10: r2 only
		{"b per-dim max", 1, 0, 100, res(800, 4096)},    // cpu from r3, memory from r4
		{"b straddle", 1, 25, 35, res(800, 4096)},       // r3 then r4
		{"b after", 1, 40, 50, res(0, 0)},               // r4 ends at 40
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tab.Used(c.host, at(c.from), at(c.to)); !slices.Equal(got, c.want) {
				t.Errorf("Used = %v, want %v", got, c.want)
			}
			capy := tab.hosts[c.host].Capacity
			want := res(capy[0]-c.want[0], capy[1]-c.want[1])
			if got := tab.Available(c.host, at(c.from), at(c.to)); !slices.Equal(got, want) {
				t.Errorf("Available = %v, want %v", got, want)
			}
		})
	}
	if got := tab.Used(7, at(0), at(1)); got != nil {
		t.Errorf("Used(unknown host) = %v, want nil", got)
	}
}

func TestFitCount(t *testing.T) {
	tab, _ := fixture(t)
	lease1 := func(r Reservation) bool { return r.Lease == 1 }
	every := func(Reservation) bool { return true }
	cases := []struct {
		name     string
		host     HostID
		from, to int
		per      Resources
		ignore   func(Reservation) bool
		want     int
	}{
		{"a cpu bound", 0, 0, 20, res(100, 512), nil, 1},                // cpu (400-300)/100=1, mem 2560/512=5
		{"a later", 0, 10, 20, res(100, 512), nil, 3},                   // cpu 300/100=3, mem 3584/512=7
		{"a zero memory per", 0, 20, 30, res(100, 0), nil, 4},           // idle: 400/100
		{"all zero per", 0, 0, 20, res(0, 0), nil, math.MaxInt32},       // no constraint
		{"a ignore r1", 0, 0, 20, res(100, 512), lease1, 3},             // only r2: cpu 3, mem 7
		{"b full", 1, 0, 40, res(100, 1024), nil, 0},                    // cpu 800 used
		{"b ignore r3", 1, 0, 40, res(100, 1024), lease1, 4},            // r4 only: cpu 400/100=4, mem 4096/1024=4
		{"b ignore r3, mem bound", 1, 0, 40, res(100, 2048), lease1, 2}, // r4: cpu 4, mem 4096/2048=2
		{"b ignore all", 1, 15, 25, res(500, 1), every, 1},              // 800/500=1
		{"too big", 0, 20, 30, res(500, 0), nil, 0},                     // 400 < 500
		{"unknown host", 5, 0, 10, res(1, 1), nil, 0},
		{"bad per", 0, 0, 10, res(1), nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tab.FitCount(c.host, at(c.from), at(c.to), c.per, c.ignore); got != c.want {
				t.Errorf("FitCount = %d, want %d", got, c.want)
			}
		})
	}
}

func TestAddRemoveGet(t *testing.T) {
	tab, ids := fixture(t)
	if tab.Len() != 4 {
		t.Fatalf("Len() = %d, want 4", tab.Len())
	}
	r, ok := tab.Get(ids[2])
	if !ok || r.ID != ids[2] || r.Lease != 2 || !r.Start.Equal(at(5)) || !r.End.Equal(at(20)) || !slices.Equal(r.Res, res(100, 512)) {
		t.Fatalf("Get(r2) = %+v %v", r, ok)
	}
	r.Res[0] = 9999 // a copy: must not reach the table
	if got := tab.Used(0, at(10), at(20)); !slices.Equal(got, res(100, 512)) {
		t.Fatalf("Used after mutating Get's copy = %v", got)
	}
	// The ID in the argument is ignored; IDs are fresh.
	id := mustAdd(t, tab, Reservation{ID: ids[1], Host: 0, Start: at(50), End: at(60), Res: res(1, 1)})
	if slices.Contains(ids[:], id) {
		t.Fatalf("Add reused ID %d", id)
	}
	if err := tab.Remove(ids[2]); err != nil {
		t.Fatal(err)
	}
	if _, ok := tab.Get(ids[2]); ok || tab.Len() != 4 {
		t.Fatalf("after Remove: Get found it = %v, Len = %d (want false, 4)", ok, tab.Len())
	}
	// Without r2, host a holds only r1 (200/1024) over [0,20).
	if got := tab.Used(0, at(0), at(20)); !slices.Equal(got, res(200, 1024)) {
		t.Errorf("Used after Remove = %v, want [200 1024]", got)
	}
	if err := tab.Check(); err != nil {
		t.Errorf("Check() = %v", err)
	}
}

func TestSetEnd(t *testing.T) {
	cases := []struct {
		name     string
		end      int // new end of r1 (was 10)
		from, to int // Used on host a over [from, to)
		want     Resources
	}{
		{"lengthen over r2", 15, 12, 14, res(300, 1536)}, // r1 now covers 12..14 with r2
		{"lengthen past r2", 30, 20, 30, res(200, 1024)}, // r2 gone at 20, r1 left
		{"shorten", 3, 3, 5, res(0, 0)},                  // r1 ends at 3, r2 starts at 5
		{"same", 10, 0, 20, res(300, 1536)},              // unchanged
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, ids := fixture(t)
			if err := tab.SetEnd(ids[1], at(c.end)); err != nil {
				t.Fatal(err)
			}
			if got := tab.Used(0, at(c.from), at(c.to)); !slices.Equal(got, c.want) {
				t.Errorf("Used = %v, want %v", got, c.want)
			}
			if r, _ := tab.Get(ids[1]); !r.End.Equal(at(c.end)) {
				t.Errorf("End = %v, want %v", r.End, at(c.end))
			}
			if err := tab.Check(); err != nil {
				t.Errorf("Check() = %v", err)
			}
		})
	}
}

func TestForLease(t *testing.T) {
	tab, ids := fixture(t)
	// An earlier reservation of lease 1 added last must still come first.
	id0 := mustAdd(t, tab, Reservation{Lease: 1, Host: 1, Start: at(-5), End: at(0), Res: res(1, 1)})
	cases := []struct {
		name  string
		lease uint64
		want  []ResID
	}{
		{"by start across hosts", 1, []ResID{id0, ids[1], ids[3]}}, // starts -5, 0, 10
		{"single", 3, []ResID{ids[4]}},
		{"none", 9, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []ResID
			for _, r := range tab.ForLease(c.lease) {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("ForLease(%d) = %v, want %v", c.lease, got, c.want)
			}
		})
	}
}

func TestReservationsOn(t *testing.T) {
	tab, ids := fixture(t)
	cases := []struct {
		name     string
		host     HostID
		from, to int
		want     []ResID
	}{
		{"both", 0, 5, 10, []ResID{ids[1], ids[2]}}, // r1 [0,10) and r2 [5,20)
		{"r1 ended", 0, 10, 20, []ResID{ids[2]}},    // end is exclusive
		{"after", 0, 20, 30, nil},
		{"before", 0, -10, 0, nil}, // r1 starts at 0 = to
		{"b all", 1, 0, 100, []ResID{ids[3], ids[4]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []ResID
			for _, r := range tab.ReservationsOn(c.host, at(c.from), at(c.to)) {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("ReservationsOn = %v, want %v", got, c.want)
			}
		})
	}
	var got []ResID
	for _, r := range tab.Overlapping(at(9), at(31)) {
		got = append(got, r.ID)
	}
	if want := []ResID{ids[1], ids[2], ids[3], ids[4]}; !slices.Equal(got, want) {
		t.Errorf("Overlapping(9, 31) = %v, want %v (host, start, ID order)", got, want)
	}
}

func TestChangePoints(t *testing.T) {
	tab, _ := fixture(t)
	// host a changes at 0, 5, 10, 20; host b at 10, 30, 40.
	cases := []struct {
		name     string
		from, to int
		want     []int
	}{
		{"all", 0, 100, []int{0, 5, 10, 20, 30, 40}},
		{"half open", 5, 30, []int{5, 10, 20}},
		{"none", 41, 50, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tab.ChangePoints(at(c.from), at(c.to))
			if !slices.EqualFunc(got, c.want, func(a time.Time, s int) bool { return a.Equal(at(s)) }) {
				t.Errorf("ChangePoints = %v, want seconds %v", got, c.want)
			}
		})
	}
	next := []struct{ after, want int }{{-1, 0}, {10, 20}, {39, 40}, {40, -1}}
	for _, c := range next {
		got, ok := tab.NextChangeAfter(at(c.after))
		if ok != (c.want >= 0) || ok && !got.Equal(at(c.want)) {
			t.Errorf("NextChangeAfter(%d) = %v %v, want %d", c.after, got, ok, c.want)
		}
	}
	// r5 [20,25) 100/512 on a cancels r2's end delta at 20: the change
	// point disappears from a, and from the table since b has none there.
	mustAdd(t, tab, Reservation{Host: 0, Start: at(20), End: at(25), Res: res(100, 512)})
	got := tab.ChangePoints(at(0), at(100))
	if want := []int{0, 5, 10, 25, 30, 40}; !slices.EqualFunc(got, want, func(a time.Time, s int) bool { return a.Equal(at(s)) }) {
		t.Errorf("after cancelling delta: ChangePoints = %v, want seconds %v", got, want)
	}
	if err := tab.Check(); err != nil {
		t.Errorf("Check() = %v", err)
	}
}

func TestLatestEnd(t *testing.T) {
	tab, ids := fixture(t)
	mustAddHost(t, tab, "c", res(1, 1))
	cases := []struct {
		host HostID
		want time.Time
	}{{0, at(20)}, {1, at(40)}, {2, time.Time{}}, {9, time.Time{}}}
	for _, c := range cases {
		if got := tab.LatestEnd(c.host); !got.Equal(c.want) {
			t.Errorf("LatestEnd(%d) = %v, want %v", c.host, got, c.want)
		}
	}
	if err := tab.Remove(ids[2]); err != nil {
		t.Fatal(err)
	}
	if got := tab.LatestEnd(0); !got.Equal(at(10)) { // only r1 [0,10) left
		t.Errorf("LatestEnd after Remove = %v, want %v", got, at(10))
	}
}

func TestZeroReservation(t *testing.T) {
	tab, _ := fixture(t)
	before := tab.ChangePoints(at(-100), at(100))
	id := mustAdd(t, tab, Reservation{Host: 0, Start: at(50), End: at(60), Res: res(0, 0)})
	if got := tab.ChangePoints(at(-100), at(100)); len(got) != len(before) {
		t.Errorf("an all-zero reservation made change points: %v", got)
	}
	if got := tab.ReservationsOn(0, at(55), at(56)); len(got) != 1 || got[0].ID != id {
		t.Errorf("ReservationsOn = %v, want the zero reservation", got)
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	if err := tab.Check(); err != nil {
		t.Errorf("Check() = %v", err)
	}
}

// TestCapacityAndName checks the host readers that copy nothing: a
// host's capacity by dimension and its name, zero for what is not there.
func TestCapacityAndName(t *testing.T) {
	tab := New()
	a, _ := tab.AddHost("a", Resources{400, 2048})
	b, _ := tab.AddHost("b", Resources{100, 512})
	if got := tab.Capacity(a, Memory); got != 2048 {
		t.Errorf("Capacity(a, Memory) = %d, want 2048", got)
	}
	if got := tab.Capacity(b, CPU); got != 100 {
		t.Errorf("Capacity(b, CPU) = %d, want 100", got)
	}
	if err := tab.SetCapacity(b, Resources{300, 512}); err != nil {
		t.Fatal(err)
	}
	if got := tab.Capacity(b, CPU); got != 300 {
		t.Errorf("Capacity(b, CPU) after SetCapacity = %d, want 300", got)
	}
	for _, c := range []struct {
		h   HostID
		dim int
	}{{HostID(2), CPU}, {HostID(-1), CPU}, {a, 2}, {a, -1}} {
		if got := tab.Capacity(c.h, c.dim); got != 0 {
			t.Errorf("Capacity(%d, %d) = %d, want 0", c.h, c.dim, got)
		}
	}
	if tab.HostName(a) != "a" || tab.HostName(b) != "b" || tab.HostName(2) != "" {
		t.Errorf("HostName = %q %q %q, want a b and empty", tab.HostName(a), tab.HostName(b), tab.HostName(2))
	}
}
