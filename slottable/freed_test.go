package slottable

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestEarliestFitMemo checks, over random operation sequences, that
// EarliestFitMemo gives exactly EarliestFit's answer (start, its location,
// counts) for a few queued "leases" asked again and again with a From
// that only moves forward, while other leases' reservations are added,
// removed (and sometimes added back identical), shortened and lengthened,
// hosts are closed and opened, the asking lease reserves its answer and
// drops it again, and the history is forgotten now and then; a third of
// the questions asked with no plan held have an Until.
func TestEarliestFitMemo(t *testing.T) {
	for _, seed := range seedsFor(t) {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, seed^0x51ed))
		g := gen{r: r, dims: 2, n: 2 + int(seed%4), unit: units[seed%5%2]}
		tab := g.table(t)
		tab.TrackFreed(true)
		type asker struct {
			id   uint64
			q    Query
			memo FitMemo
			held []ResID
		}
		var askers []*asker
		for i := range 3 {
			askers = append(askers, &asker{id: uint64(100 + i), q: Query{
				N: 1 + r.IntN(4), Per: Resources{int64(100 * (1 + r.IntN(2))), int64(512 * r.IntN(3))},
				Duration: time.Duration(1+r.IntN(15)) * g.unit}})
		}
		var ids []ResID
		var removed []Reservation
		from := 0
		for step := range 1500 {
			if d := clusterDiff(tab); d != "" { // the open hosts' usage added up (cluster.go)
				t.Fatalf("step %d: %s", step, d)
			}
			switch k := r.IntN(20); {
			case g.churn(t, tab, k, &ids, &removed):
			case k < 15:
				tab.ForgetFreed(tab.FreedMark() - min(tab.FreedMark(), uint64(r.IntN(10))))
			case k < 16:
				from += r.IntN(3)
			default:
				a := askers[r.IntN(len(askers))]
				q := a.q
				q.From = g.at(from)
				var want, got Fit
				var wok, gok bool
				if r.IntN(2) == 0 { // asked while it holds its plan
					for i, id := range a.held {
						if r.IntN(2) == 0 {
							a.held[i], _ = tab.Renumber(id)
						}
					}
					wq := q
					wq.Ignore = func(res Reservation) bool { return res.Lease == a.id }
					want, wok = tab.EarliestFit(wq)
					got, gok = tab.EarliestFitWithout(q, a.id, &a.memo)
					if wok != gok || !got.Start.Equal(want.Start) || got.Start.Location() != want.Start.Location() ||
						!slices.Equal(got.Counts, want.Counts) {
						t.Fatalf("step %d, lease %d from %v: EarliestFitWithout = %v %v, EarliestFit = %v %v",
							step, a.id, q.From, got, gok, want, wok)
					}
					continue
				}
				for _, id := range a.held { // planned again: its plan is dropped first
					_ = tab.Remove(id)
				}
				a.held = nil
				if r.IntN(3) == 0 { // planned by a deadline: no start after Until
					q.Until = g.at(from + r.IntN(25))
				}
				want, wok = tab.EarliestFit(q)
				got, gok = tab.EarliestFitMemo(q, a.id, &a.memo)
				if wok != gok || !got.Start.Equal(want.Start) || got.Start.Location() != want.Start.Location() ||
					!slices.Equal(got.Counts, want.Counts) {
					t.Fatalf("step %d, lease %d from %v: EarliestFitMemo = %v %v, EarliestFit = %v %v",
						step, a.id, q.From, got, gok, want, wok)
				}
				if gok && r.IntN(3) > 0 { // it reserves what it was given
					left := q.N
					for _, c := range got.Counts {
						n := int64(min(c.Count, left))
						left -= int(n)
						id, err := tab.Add(Reservation{Lease: a.id, Host: c.Host, Start: got.Start,
							End: got.Start.Add(max(q.Duration, 1)), Res: Resources{n * q.Per[0], n * q.Per[1]}})
						if err != nil {
							t.Fatal(err)
						}
						a.held = append(a.held, id)
						if left == 0 {
							break
						}
					}
				}
			}
		}
	}
}

// TestEarliestFitMemoHelps checks that the memo is used: after an
// unrelated removal, asking again searches from the remembered start.
func TestEarliestFitMemoHelps(t *testing.T) {
	tab := New()
	for range 2 {
		if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	tab.TrackFreed(true)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	// Both hosts busy over [0, 10): two VMs fit from 10 on.
	for h := range 2 {
		if _, err := tab.Add(Reservation{Lease: 1, Host: HostID(h), Start: at(0), End: at(10), Res: Resources{100, 1024}}); err != nil {
			t.Fatal(err)
		}
	}
	// Host 1 busy over [20, 30), then freed: too short a gap before 20
	// does not matter (the lease lasts 5 s), the freed interval is after
	// the remembered start.
	id, err := tab.Add(Reservation{Lease: 2, Host: 1, Start: at(20), End: at(30), Res: Resources{100, 1024}})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{N: 2, Per: Resources{100, 1024}, Duration: 5 * time.Second, From: at(1)}
	var m FitMemo
	fit, ok := tab.EarliestFitMemo(q, 9, &m)
	if !ok || !fit.Start.Equal(at(10)) || m.start != toNS(at(10)) { // 10: both hosts free for 5 s
		t.Fatalf("first answer %v %v, memo %+v", fit, ok, m)
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	if cs := tab.freedStarts(q, 9, m.mark, toNS(at(2)), m.start-1, int64(q.Duration), posInf); len(cs) != 0 {
		t.Fatalf("freed starts before 10 = %v, want none (the freed interval begins at 20)", cs)
	}
	q.From = at(2)
	fit, ok = tab.EarliestFitMemo(q, 9, &m)
	if !ok || !fit.Start.Equal(at(10)) {
		t.Fatalf("second answer %v %v, want 10", fit, ok)
	}
}

// TestRenumber checks that Renumber gives the IDs that removing and adding
// the reservations again would, and changes nothing else.
func TestRenumber(t *testing.T) {
	build := func() (*Table, []ResID) {
		tab := New()
		if _, err := tab.AddHost("h", Resources{400, 4096}); err != nil {
			t.Fatal(err)
		}
		var ids []ResID
		for i := range 4 {
			id, err := tab.Add(Reservation{Lease: uint64(1 + i%2), Start: base, End: base.Add(time.Duration(1+i) * time.Second), Res: Resources{100, 512}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return tab, ids
	}
	a, ids := build()
	b, _ := build()
	for _, id := range []ResID{ids[1], ids[0]} {
		got, err := a.Renumber(id)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := b.Get(id)
		if err := b.Remove(id); err != nil {
			t.Fatal(err)
		}
		want, err := b.Add(r)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("Renumber(%d) = %d, remove and add give %d", id, got, want)
		}
	}
	ra, rb := a.ReservationsOn(0, base, base.Add(time.Hour)), b.ReservationsOn(0, base, base.Add(time.Hour))
	if len(ra) != len(rb) {
		t.Fatalf("%d reservations, want %d", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i].ID != rb[i].ID || !ra[i].End.Equal(rb[i].End) || ra[i].Lease != rb[i].Lease {
			t.Fatalf("reservation %d: %+v, want %+v", i, ra[i], rb[i])
		}
	}
	if !slices.Equal(a.Used(0, base, base.Add(time.Hour)), b.Used(0, base, base.Add(time.Hour))) {
		t.Fatal("usage differs")
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Renumber(999); err == nil {
		t.Fatal("Renumber of an unknown reservation: no error")
	}
}

// TestRenumberMixedStarts renumbers reservations of one host whose starts
// partly coincide, so that some keep their place in the interval tree
// (no later reservation starts with them) and some must move: the IDs,
// the order ReservationsOn gives and the table's invariants match
// removing and adding each again.
func TestRenumberMixedStarts(t *testing.T) {
	starts := []int{0, 1, 1, 2, 3, 3, 3, 5}
	build := func() (*Table, []ResID) {
		tab := New()
		if _, err := tab.AddHost("h", Resources{1000, 8192}); err != nil {
			t.Fatal(err)
		}
		var ids []ResID
		for i, s := range starts {
			st := base.Add(time.Duration(s) * time.Second)
			id, err := tab.Add(Reservation{Lease: uint64(1 + i), Start: st, End: st.Add(time.Duration(2+i) * time.Second), Res: Resources{100, 512}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return tab, ids
	}
	a, ids := build()
	b, _ := build()
	// 2 and 6 are the last of their start (in place); 1, 4 and 5 are not.
	for _, k := range []int{2, 6, 1, 4, 7, 5, 0, 3} {
		id := ids[k]
		got, err := a.Renumber(id)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := b.Get(id)
		if err := b.Remove(id); err != nil {
			t.Fatal(err)
		}
		want, err := b.Add(r)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("Renumber(%d) = %d, remove and add give %d", id, got, want)
		}
		if a.Has(id) || !a.Has(got) {
			t.Fatalf("after Renumber(%d) = %d: Has(old) %v, Has(new) %v", id, got, a.Has(id), a.Has(got))
		}
		if err := a.Check(); err != nil {
			t.Fatalf("after renumbering %d: %v", id, err)
		}
		ra, rb := a.ReservationsOn(0, base, base.Add(time.Hour)), b.ReservationsOn(0, base, base.Add(time.Hour))
		for i := range rb {
			if i >= len(ra) || ra[i].ID != rb[i].ID || !ra[i].Start.Equal(rb[i].Start) {
				t.Fatalf("after renumbering %d, reservation %d: %+v, want %+v", id, i, ra, rb)
			}
		}
	}
}

// TestFitMemoSince checks that a memo's answer keeps its Since exactly
// while nothing changed over the fit's interval but the lease's own
// reservations, and that the counts given then are EarliestFit's.
func TestFitMemoSince(t *testing.T) {
	tab := New()
	for range 2 {
		if _, err := tab.AddHost("h", Resources{200, 2048}); err != nil {
			t.Fatal(err)
		}
	}
	tab.TrackFreed(true)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	vm := Resources{100, 1024}
	for h := range 2 { // both hosts full over [0, 10)
		if _, err := tab.Add(Reservation{Lease: 1, Host: HostID(h), Start: at(0), End: at(10), Res: Resources{200, 2048}}); err != nil {
			t.Fatal(err)
		}
	}
	var m FitMemo
	q := Query{N: 2, Per: vm, Duration: 5 * time.Second, From: at(1)}
	ask := func(step string, wantStart int, want []HostCount) uint64 {
		t.Helper()
		fit, ok := tab.EarliestFitWithout(q, 9, &m)
		plain, _ := tab.EarliestFit(Query{N: q.N, Per: q.Per, Duration: q.Duration, From: q.From,
			Ignore: func(r Reservation) bool { return r.Lease == 9 }})
		if !ok || !fit.Start.Equal(at(wantStart)) || !slices.Equal(fit.Counts, want) || !slices.Equal(plain.Counts, want) {
			t.Fatalf("%s: fit %v %v (EarliestFit %v), want %d %v", step, fit, ok, plain, wantStart, want)
		}
		return m.Since()
	}
	both := []HostCount{{0, 2}, {1, 2}}
	s1 := ask("first", 10, both)
	if s1 == 0 {
		t.Fatal("an answer with Since 0")
	}
	// Another lease's reservation after the fit's interval [10, 15), and
	// the lease's own in it: nothing changed there for it.
	if _, err := tab.Add(Reservation{Lease: 3, Host: 0, Start: at(15), End: at(40), Res: vm}); err != nil {
		t.Fatal(err)
	}
	own, err := tab.Add(Reservation{Lease: 9, Host: 0, Start: at(10), End: at(15), Res: Resources{200, 2048}})
	if err != nil {
		t.Fatal(err)
	}
	q.From = at(2)
	if s := ask("unrelated changes", 10, both); s != s1 {
		t.Fatalf("Since %d after changes outside the interval or by the lease itself, want %d", s, s1)
	}
	// Another lease takes a VM's room on host 1 within [10, 15).
	id, err := tab.Add(Reservation{Lease: 3, Host: 1, Start: at(12), End: at(13), Res: vm})
	if err != nil {
		t.Fatal(err)
	}
	s2 := ask("added inside", 10, []HostCount{{0, 2}, {1, 1}})
	if s2 == s1 {
		t.Fatal("Since unchanged after a reservation added inside the interval")
	}
	if s := ask("again", 10, []HostCount{{0, 2}, {1, 1}}); s != s2 {
		t.Fatalf("Since %d asked again with no change, want %d", s, s2)
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	s3 := ask("removed inside", 10, both)
	if s3 == s2 || s3 == s1 {
		t.Fatalf("Since %d after a removal inside the interval (before %d, %d)", s3, s1, s2)
	}
	if err := tab.Remove(own); err != nil {
		t.Fatal(err)
	}
	if s := ask("own removed", 10, both); s != s3 {
		t.Fatalf("Since %d after the lease's own removal, want %d", s, s3)
	}
	if err := tab.SetCapacity(0, Resources{100, 2048}); err != nil {
		t.Fatal(err)
	}
	s4 := ask("capacity lowered", 10, []HostCount{{0, 1}, {1, 2}})
	if s4 == s3 {
		t.Fatal("Since unchanged after the capacity was lowered")
	}
	if err := tab.SetClosed(0, true); err != nil {
		t.Fatal(err)
	}
	if s := ask("host closed", 10, []HostCount{{1, 2}}); s == s4 {
		t.Fatal("Since unchanged after a host was closed")
	}
}

// TestSkipFailed checks which starts a range found empty rules out for
// a later query: only a dominated one's, only starts inside the range
// and before the asking lease's own reservations less its duration, and
// only while the table is unchanged.
func TestSkipFailed(t *testing.T) {
	tab := New()
	if _, err := tab.AddHost("h", Resources{400, 4096}); err != nil {
		t.Fatal(err)
	}
	tab.TrackFreed(true)
	small := Query{N: 2, Per: Resources{100, 512}}
	tab.noteFailed(&small, 5, 0, 100, 1) // nothing starts in [0, 100] for 2 x (100, 512) for 5: 1 at most
	cases := []struct {
		name    string
		q       Query
		d, a    int64
		lim     int64
		wantNew int64
	}{
		{"more and larger VMs, longer", Query{N: 3, Per: Resources{200, 512}}, 7, 10, posInf, 101},
		{"own reservations from 50", Query{N: 2, Per: Resources{100, 512}}, 5, 10, 50, 46},
		{"own reservations too early", Query{N: 2, Per: Resources{100, 512}}, 5, 10, 12, 10},
		{"fewer VMs", Query{N: 1, Per: Resources{100, 512}}, 5, 10, posInf, 10},
		{"smaller memory", Query{N: 2, Per: Resources{100, 256}}, 5, 10, posInf, 10},
		{"shorter", Query{N: 2, Per: Resources{100, 512}}, 4, 10, posInf, 10},
		{"after the range", Query{N: 2, Per: Resources{100, 512}}, 5, 101, posInf, 101},
	}
	for _, c := range cases {
		if got := tab.skipFailed(&c.q, c.d, c.a, 300, c.lim); got != c.wantNew {
			t.Errorf("%s: first start %d, want %d", c.name, got, c.wantNew)
		}
	}
	// Ranges chain: [101, 150] found empty for the small query too.
	tab.noteFailed(&small, 5, 101, 150, 1)
	if got := tab.skipFailed(&small, 5, 0, 300, posInf); got != 151 {
		t.Errorf("two ranges: first start %d, want 151", got)
	}
	// A larger query that failed with room for at most 2 of its VMs rules
	// out its range for 3 or more of the small VMs, but not for 2.
	big := Query{N: 6, Per: Resources{100, 512}}
	tab.noteFailed(&big, 5, 200, 250, 2)
	if got := tab.skipFailed(&Query{N: 3, Per: Resources{100, 512}}, 5, 200, 300, posInf); got != 251 {
		t.Errorf("3 VMs where 2 fitted: first start %d, want 251", got)
	}
	if got := tab.skipFailed(&small, 5, 200, 300, posInf); got != 200 {
		t.Errorf("2 VMs where 2 fitted: first start %d, want 200", got)
	}
	// Usage raised keeps them; usage freed forgets those whose starts'
	// windows it overlaps, and only those.
	id, err := tab.Add(Reservation{Lease: 1, Host: 0, Start: time.Unix(0, 120), End: time.Unix(0, 130), Res: Resources{100, 512}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.skipFailed(&small, 5, 0, 300, posInf); got != 151 {
		t.Errorf("after an Add: first start %d, want 151", got)
	}
	if err := tab.Remove(id); err != nil {
		t.Fatal(err)
	}
	if got := tab.skipFailed(&small, 5, 0, 300, posInf); got != 101 {
		t.Errorf("after freeing [120, 130): first start %d, want 101 ([0, 100] holds, [101, 150] is forgotten)", got)
	}
	if got := tab.skipFailed(&Query{N: 3, Per: Resources{100, 512}}, 5, 200, 300, posInf); got != 251 {
		t.Errorf("after freeing [120, 130): 3 VMs from 200: first start %d, want 251", got)
	}
	if err := tab.SetCapacity(0, Resources{800, 8192}); err != nil {
		t.Fatal(err)
	}
	if got := tab.skipFailed(&small, 5, 0, 300, posInf); got != 0 {
		t.Errorf("after more capacity: first start %d, want 0", got)
	}
}

// TestRenumberAll checks RenumberAll against Renumber one at a time: the
// same new IDs, written over the old ones, each lease listing its new IDs
// (in the table's order, or out of it, or two leases in one call), and an
// unknown ID stopping it with the ones before it renumbered.
func TestRenumberAll(t *testing.T) {
	tab := New()
	for _, h := range []string{"a", "b"} {
		if _, err := tab.AddHost(h, Resources{800, 8192}); err != nil {
			t.Fatal(err)
		}
	}
	byLease := map[uint64][]ResID{}
	for i := range 12 {
		lease := uint64(1 + i%3)
		st := base.Add(time.Duration(i%4) * time.Second)
		id, err := tab.Add(Reservation{Lease: lease, Host: HostID(i % 2), Start: st, End: st.Add(time.Duration(3+i) * time.Second), Res: Resources{100, 512}})
		if err != nil {
			t.Fatal(err)
		}
		byLease[lease] = append(byLease[lease], id)
	}
	ids := func(tb *Table, lease uint64) []ResID {
		var out []ResID
		for _, r := range tb.ForLease(lease) {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, pick := range []func() []ResID{
		func() []ResID { return slices.Clone(byLease[1]) },                                            // the table's order
		func() []ResID { return []ResID{byLease[2][3], byLease[2][0], byLease[2][2], byLease[2][1]} }, // out of it
		func() []ResID { return []ResID{byLease[3][1], byLease[1][0], byLease[3][0]} },                // two leases
	} {
		batch := pick()
		b := tab.Clone()
		var want []ResID
		for _, id := range batch {
			got, err := b.Renumber(id)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, got)
		}
		if err := tab.RenumberAll(batch); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(batch, want) {
			t.Fatalf("RenumberAll gives %v, Renumber one at a time %v", batch, want)
		}
		for lease := uint64(1); lease <= 3; lease++ {
			if got, w := ids(tab, lease), ids(b, lease); !slices.Equal(got, w) {
				t.Fatalf("lease %d lists %v, want %v", lease, got, w)
			}
		}
		if err := tab.Check(); err != nil {
			t.Fatal(err)
		}
		// The batch's leases again, from what they are now.
		for lease := range byLease {
			byLease[lease] = byLease[lease][:0]
			for _, r := range tab.ForLease(lease) {
				byLease[lease] = append(byLease[lease], r.ID)
			}
		}
	}
	known := byLease[2][0]
	batch := []ResID{known, 999, byLease[2][1]}
	if err := tab.RenumberAll(batch); !errors.Is(err, ErrUnknownReservation) {
		t.Fatalf("RenumberAll with an unknown ID: %v, want ErrUnknownReservation", err)
	}
	if tab.Has(known) || !tab.Has(batch[0]) || batch[2] != byLease[2][1] || !tab.Has(batch[2]) {
		t.Fatalf("after the unknown ID: %v (was %d, 999, %d)", batch, known, byLease[2][1])
	}
}

// TestMemoAge checks how much history a memo would have a search read:
// none right after it is made, one entry per change since (an Add logs
// raised usage, a Remove freed usage), none for an empty memo or one made
// on another table.
func TestMemoAge(t *testing.T) {
	tab := New()
	if _, err := tab.AddHost("h", Resources{400, 2048}); err != nil {
		t.Fatal(err)
	}
	tab.TrackFreed(true)
	q := Query{N: 1, Per: Resources{100, 512}, Duration: time.Minute, From: base}
	var m FitMemo
	if _, ok := tab.EarliestFitMemo(q, 9, &m); !ok {
		t.Fatal("no fit on an empty host")
	}
	if got := tab.MemoAge(&m); got != 0 {
		t.Fatalf("age right after the search = %d, want 0", got)
	}
	var ids []ResID
	for i := range 3 {
		id, err := tab.Add(Reservation{Lease: 1, Host: 0, Start: base.Add(time.Duration(i) * time.Hour), End: base.Add(time.Duration(i+1) * time.Hour), Res: Resources{100, 512}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := tab.Remove(ids[1]); err != nil {
		t.Fatal(err)
	}
	if got := tab.MemoAge(&m); got != 4 {
		t.Fatalf("age after three adds and a removal = %d, want 4", got)
	}
	if got := tab.MemoAge(&FitMemo{}); got != 0 {
		t.Errorf("age of an empty memo = %d, want 0", got)
	}
	if got := tab.Clone().MemoAge(&m); got != 0 {
		t.Errorf("age on a clone = %d, want 0 (the memo is not about it)", got)
	}
}

// TestEarliestFitMemoUntil follows one lease asked with an Until (planned
// by its deadline) from a memo: a fit after Until is no answer and leaves
// the memo as it was, a freed interval before Until gives the fit there,
// and a question that finds nothing without a memo leaves none.
func TestEarliestFitMemoUntil(t *testing.T) {
	tab := New()
	mustAddHost(t, tab, "a", Resources{100, 1024})
	tab.TrackFreed(true)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	busy := func(lease uint64, s, e int) ResID {
		return mustAdd(t, tab, Reservation{Lease: lease, Host: 0, Start: at(s), End: at(e), Res: Resources{100, 1024}})
	}
	busy(1, 0, 2)
	mid := busy(2, 2, 10)
	q := Query{N: 1, Per: Resources{100, 1024}, Duration: 3 * time.Second, From: at(0)}
	var m FitMemo
	if fit, ok := tab.EarliestFitMemo(q, 9, &m); !ok || !fit.Start.Equal(at(10)) {
		t.Fatalf("no Until: %v %v, want a fit at 10", fit, ok)
	}
	since := m.Since()
	q.Until = at(5) // the fit at 10 is too late
	if fit, ok := tab.EarliestFitMemo(q, 9, &m); ok {
		t.Fatalf("Until 5: %v, want none (the host is busy until 10)", fit)
	}
	if m.Since() != since || m.start != toNS(at(10)) {
		t.Fatalf("Until 5 found nothing: memo %+v, want it as it was (since %d, start 10)", m, since)
	}
	if _, ok := tab.EarliestFit(q); ok {
		t.Fatalf("EarliestFit with Until 5 fits; the memo's answer must agree")
	}
	// Lease 2 leaves [2, 10): from 2 on the host is free for 3 s.
	if err := tab.Remove(mid); err != nil {
		t.Fatal(err)
	}
	fit, ok := tab.EarliestFitMemo(q, 9, &m)
	if !ok || !fit.Start.Equal(at(2)) {
		t.Fatalf("after the removal, Until 5: %v %v, want a fit at 2", fit, ok)
	}
	if m.start != toNS(at(2)) {
		t.Fatalf("memo start %d, want 2 s (a fit by Until is the earliest fit)", m.start)
	}
	// Busy again over [2, 20): nothing by 5, from the memo or without
	// one, and the memo stays as it was.
	busy(3, 2, 20)
	kept := m
	if fit, ok := tab.EarliestFitMemo(q, 9, &m); ok {
		t.Fatalf("busy until 20, Until 5: %v, want none", fit)
	}
	if m.Since() != kept.Since() || m.mark != kept.mark || m.start != kept.start || m.from != kept.from {
		t.Fatalf("nothing found by Until: memo %+v, want %+v", m, kept)
	}
	var none FitMemo
	if fit, ok := tab.EarliestFitMemo(q, 9, &none); ok || none.Since() != 0 {
		t.Fatalf("busy until 20, Until 5, no memo: %v %v, memo %+v; want none, no memo", fit, ok, none)
	}
	// A start-now question neither reads nor writes the memo.
	q.From, q.Until = at(20), at(20)
	if fit, ok := tab.EarliestFitMemo(q, 9, &none); !ok || !fit.Start.Equal(at(20)) || none.Since() != 0 {
		t.Fatalf("start now at 20: %v %v, memo %+v; want a fit at 20 and no memo", fit, ok, none)
	}
}
