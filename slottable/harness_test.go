package slottable

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// harness drives a Table and the brute-force model side by side and
// fails the test at the first disagreement. Property and fuzz tests share
// it.
type harness struct {
	tb  testing.TB
	tab *Table
	m   *model
	ids []ResID // live reservations, in the order added
}

func newHarness(tb testing.TB, extra []string, caps []Resources) *harness {
	h := &harness{tb: tb, tab: New(extra...), m: newModel()}
	for i, c := range caps {
		mustAddHost(tb, h.tab, string(rune('a'+i)), c)
		h.m.caps = append(h.m.caps, slices.Clone(c))
	}
	return h
}

// add adds r, expecting ErrOverCapacity exactly when checking is on and
// the model says the host would overflow.
func (h *harness) add(r Reservation) {
	h.tb.Helper()
	over := h.tab.Checking() && h.m.wouldOverflow(r.Host, r.Start.UnixNano(), r.End.UnixNano(), r.Res)
	n := h.tab.Len()
	id, err := h.tab.Add(r)
	switch {
	case over && !errors.Is(err, ErrOverCapacity):
		h.tb.Fatalf("Add(%+v) over capacity: err = %v, want ErrOverCapacity", r, err)
	case over && h.tab.Len() != n:
		h.tb.Fatalf("failed Add changed Len from %d to %d", n, h.tab.Len())
	case over:
		return
	case err != nil:
		h.tb.Fatalf("Add(%+v): %v", r, err)
	}
	r.ID = id
	r.Res = slices.Clone(r.Res)
	h.m.rs[id] = r
	h.ids = append(h.ids, id)
}

// remove removes the i-th live reservation (mod their number).
func (h *harness) remove(i int) {
	h.tb.Helper()
	if len(h.ids) == 0 {
		return
	}
	i %= len(h.ids)
	id := h.ids[i]
	if err := h.tab.Remove(id); err != nil {
		h.tb.Fatalf("Remove(%d): %v", id, err)
	}
	delete(h.m.rs, id)
	h.ids = slices.Delete(h.ids, i, i+1)
	if _, ok := h.tab.Get(id); ok {
		h.tb.Fatalf("Get(%d) found a removed reservation", id)
	}
}

// renumber renumbers k live reservations from the i-th on (mod their
// number, in the order added) with RenumberAll: each gets a new ID larger
// than any given before, in turn, and keeps everything else.
func (h *harness) renumber(i, k int) {
	h.tb.Helper()
	if len(h.ids) == 0 {
		return
	}
	var top ResID
	for _, id := range h.ids {
		top = max(top, id)
	}
	var pos []int
	for j := range min(k, len(h.ids)) {
		pos = append(pos, (i+j)%len(h.ids))
	}
	batch := make([]ResID, len(pos))
	for j, p := range pos {
		batch[j] = h.ids[p]
	}
	old := slices.Clone(batch)
	if err := h.tab.RenumberAll(batch); err != nil {
		h.tb.Fatalf("RenumberAll(%v): %v", old, err)
	}
	for j, p := range pos {
		if batch[j] <= top {
			h.tb.Fatalf("RenumberAll(%v) = %v: not above %d and increasing", old, batch, top)
		}
		top = batch[j]
		r := h.m.rs[old[j]]
		delete(h.m.rs, old[j])
		r.ID = batch[j]
		h.m.rs[r.ID] = r
		h.ids[p] = r.ID
		if h.tab.Has(old[j]) {
			h.tb.Fatalf("RenumberAll: the table still holds %d", old[j])
		}
	}
}

// setEnd moves the i-th live reservation's end to its start plus length.
func (h *harness) setEnd(i int, length time.Duration) {
	h.tb.Helper()
	if len(h.ids) == 0 {
		return
	}
	id := h.ids[i%len(h.ids)]
	r := h.m.rs[id]
	end := r.Start.Add(length)
	over := false
	if h.tab.Checking() && end.After(r.End) {
		over = h.m.wouldOverflow(r.Host, r.End.UnixNano(), end.UnixNano(), r.Res)
	}
	err := h.tab.SetEnd(id, end)
	switch {
	case length <= 0 && !errors.Is(err, ErrBadInterval):
		h.tb.Fatalf("SetEnd(%d, start%+v): err = %v, want ErrBadInterval", id, length, err)
	case length <= 0:
	case over && !errors.Is(err, ErrOverCapacity):
		h.tb.Fatalf("SetEnd(%d, %v) over capacity: err = %v", id, end, err)
	case over:
	case err != nil:
		h.tb.Fatalf("SetEnd(%d, %v): %v", id, end, err)
	default:
		r.End = end
		h.m.rs[id] = r
	}
}

// probe is one set of query parameters.
type probe struct {
	host     HostID
	from, to time.Time
	per      Resources
	lease    int // ignore this lease's reservations; -1: no ignore
	n        int
	dur      time.Duration
	until    time.Time
	mask     uint // allowed hosts; 0: all
}

func (p probe) ignore() func(Reservation) bool {
	if p.lease < 0 {
		return nil
	}
	return func(r Reservation) bool { return r.Lease == uint64(p.lease) }
}

// query compares every read-only query the probe describes.
func (h *harness) query(p probe) {
	h.tb.Helper()
	f, e := p.from.UnixNano(), p.to.UnixNano()
	if got, want := h.tab.Used(p.host, p.from, p.to), h.m.used(p.host, f, e, nil); !slices.Equal(got, want) {
		h.tb.Fatalf("Used(%d, %v, %v) = %v, want %v", p.host, p.from, p.to, got, want)
	}
	got := h.tab.FitCount(p.host, p.from, p.to, p.per, p.ignore())
	if want := h.m.fitCount(p.host, f, e, p.per, p.ignore()); got != want {
		h.tb.Fatalf("FitCount(%d, %v, %v, %v, lease %d) = %d, want %d", p.host, p.from, p.to, p.per, p.lease, got, want)
	}
	on := h.tab.ReservationsOn(p.host, p.from, p.to)
	wantOn := h.m.sorted(func(r Reservation) bool {
		return r.Host == p.host && r.Start.Before(p.to) && r.End.After(p.from)
	})
	if !sameRes(on, wantOn) {
		h.tb.Fatalf("ReservationsOn(%d, %v, %v) = %v, want %v", p.host, p.from, p.to, on, wantOn)
	}
	q := Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from, Until: p.until, Ignore: p.ignore()}
	if p.mask != 0 {
		q.Hosts = func(id HostID) bool { return p.mask&(1<<uint(id)) != 0 }
	}
	fit, ok, most := h.tab.earliestFit(q)
	wantFit, wantOK, wantMost := h.m.earliestMost(q)
	if ok != wantOK || ok && !sameFit(fit, wantFit) {
		h.tb.Fatalf("EarliestFit(%+v) = %v %v, want %v %v", p, fit, ok, wantFit, wantOK)
	}
	// The most VMs that fitted together at the starts before the fit (all
	// of them without one): what noteFailed keeps. At least the true most
	// (skipFailed relies on it), below N, and exactly it when the windows
	// were swept (a span of starts, on hosts that could hold N when empty)
	// from From: with the open hosts' usage added up (cluster.go), the sweep
	// may begin later, and the most is then only a bound.
	if most < wantMost || most >= max(q.N, 1) {
		h.tb.Fatalf("EarliestFit(%+v) = %v %v: most %d, want %d (and below %d)", p, fit, ok, most, wantMost, q.N)
	}
	if most != wantMost && !q.Until.Equal(q.From) && h.m.room(q) >= q.N && h.tab.cl == nil {
		h.tb.Fatalf("EarliestFit(%+v) = %v %v: most %d, want exactly %d", p, fit, ok, most, wantMost)
	}
}

// verify checks Check, Len and the lease index against the model.
func (h *harness) verify() {
	h.tb.Helper()
	err := h.tab.Check()
	if over := h.m.overloaded(); over != errors.Is(err, ErrOverCapacity) || !over && err != nil {
		h.tb.Fatalf("Check() = %v; model overloaded = %v", err, over)
	}
	if h.tab.Len() != len(h.m.rs) {
		h.tb.Fatalf("Len() = %d, want %d", h.tab.Len(), len(h.m.rs))
	}
	for lease := range uint64(4) {
		got := h.tab.ForLease(lease)
		want := h.m.sorted(func(r Reservation) bool { return r.Lease == lease })
		slices.SortFunc(want, func(a, b Reservation) int {
			if c := a.Start.Compare(b.Start); c != 0 {
				return c
			}
			return int(a.ID) - int(b.ID)
		})
		if !sameRes(got, want) {
			h.tb.Fatalf("ForLease(%d) = %v, want %v", lease, got, want)
		}
	}
	all := h.tab.Overlapping(time.Unix(0, math.MinInt64+1), time.Unix(0, math.MaxInt64))
	if want := h.m.sorted(func(Reservation) bool { return true }); !sameRes(all, want) {
		h.tb.Fatalf("Overlapping(all) = %v, want %v", all, want)
	}
}

// recorder is a testing.TB whose Fatalf records instead of stopping, to
// test that the harness catches what it must.
type recorder struct {
	testing.TB
	fails []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fails = append(r.fails, fmt.Sprintf(format, args...))
}

// caught reports whether a recorded failure begins with prefix.
func (r *recorder) caught(prefix string) bool {
	return slices.ContainsFunc(r.fails, func(f string) bool { return strings.HasPrefix(f, prefix) })
}

// TestHarnessCatchesDivergence: the harness passes when the table and
// the model agree, and fails when either holds a reservation the other
// does not, so the property and fuzz tests built on it can fail.
func TestHarnessCatchesDivergence(t *testing.T) {
	at := time.Unix(1000, 0)
	r := Reservation{Lease: 1, Host: 0, Start: at, End: at.Add(time.Hour), Res: Resources{100, 512}}
	p := probe{host: 0, from: at, to: at.Add(time.Hour), per: Resources{100, 512}, lease: -1, n: 1,
		dur: time.Minute, until: at.Add(2 * time.Hour)}
	caps := []Resources{{200, 1024}}

	rec := &recorder{TB: t}
	h := newHarness(rec, nil, caps)
	h.add(r)
	h.query(p)
	h.verify()
	if len(rec.fails) != 0 {
		t.Fatalf("agreeing table and model failed: %v", rec.fails)
	}

	// The table holds a reservation the model does not: Len and the
	// queries disagree.
	rec = &recorder{TB: t}
	h = newHarness(rec, nil, caps)
	if _, err := h.tab.Add(r); err != nil {
		t.Fatal(err)
	}
	h.verify()
	h.query(p)
	for _, want := range []string{"Len()", "ForLease(", "Overlapping(", "Used(", "FitCount(", "ReservationsOn("} {
		if !rec.caught(want) {
			t.Fatalf("table-only reservation: no %s failure in %q", want, rec.fails)
		}
	}

	// The model holds one the table does not.
	rec = &recorder{TB: t}
	h = newHarness(rec, nil, caps)
	r.ID = 99
	h.m.rs[99] = r
	h.query(p)
	if !rec.caught("Used(") || !rec.caught("FitCount(") {
		t.Fatalf("model-only reservation: recorded %q", rec.fails)
	}
}

// resOf returns the IDs of lease's reservations, in the table's order of
// its list (slotsOf).
func (t *Table) resOf(lease uint64) []ResID {
	var ids []ResID
	for _, slot := range t.slotsOf(lease) {
		ids = append(ids, t.rs[slot].ID)
	}
	return ids
}
