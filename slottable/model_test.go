package slottable

import (
	"math"
	"slices"
	"testing"
	"time"
)

// base is the origin of the test clock; at(s) is s seconds after it.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }

// res builds a resource vector.
func res(v ...int64) Resources { return Resources(v) }

// model is the brute-force oracle: a plain list of reservations, every
// query answered by scanning it.
type model struct {
	caps []Resources
	rs   map[ResID]Reservation
}

func newModel() *model { return &model{rs: make(map[ResID]Reservation)} }

func (m *model) clone() *model {
	c := &model{caps: slices.Clone(m.caps), rs: make(map[ResID]Reservation, len(m.rs))}
	for k, v := range m.rs {
		c.rs[k] = v
	}
	return c
}

// usageAt is host h's usage at instant t (ns), leaving out ignored
// reservations.
func (m *model) usageAt(h HostID, t int64, ignore func(Reservation) bool) []int64 {
	u := make([]int64, len(m.caps[h]))
	for _, r := range m.rs {
		if r.Host != h || r.Start.UnixNano() > t || r.End.UnixNano() <= t {
			continue
		}
		if ignore != nil && ignore(r) {
			continue
		}
		for j, v := range r.Res {
			u[j] += v
		}
	}
	return u
}

// used is the maximum usage over [from, to) (the instant from when empty),
// checking from and every start or end inside.
func (m *model) used(h HostID, from, to int64, ignore func(Reservation) bool) []int64 {
	if to <= from {
		to = from + 1
	}
	out := m.usageAt(h, from, ignore)
	for _, r := range m.rs {
		for _, t := range []int64{r.Start.UnixNano(), r.End.UnixNano()} {
			if r.Host == h && t > from && t < to {
				for j, u := range m.usageAt(h, t, ignore) {
					out[j] = max(out[j], u)
				}
			}
		}
	}
	return out
}

// fitCount follows the FitCount definition literally.
func (m *model) fitCount(h HostID, from, to int64, per Resources, ignore func(Reservation) bool) int {
	used := m.used(h, from, to, ignore)
	best := math.MaxInt32
	for j, p := range per {
		if p > 0 {
			free := m.caps[h][j] - used[j]
			best = min(best, int(max(free, 0)/p))
		}
	}
	return best
}

// earliest tries From and then every start and end time after it, in
// order, and returns the first where the allowed hosts hold N.
func (m *model) earliest(q Query) (Fit, bool) {
	f, ok, _ := m.earliestMost(q)
	return f, ok
}

// earliestMost is earliest; it also returns the most VMs that fit
// together at any allowed start before the fit's (at any allowed start
// when there is none; the count only rises at a change point, so at a
// candidate).
func (m *model) earliestMost(q Query) (Fit, bool, int) {
	from := q.From.UnixNano()
	d := max(int64(q.Duration), 1)
	until := int64(math.MaxInt64)
	if !q.Until.IsZero() {
		until = q.Until.UnixNano()
	}
	if until < from {
		return Fit{}, false, 0
	}
	if q.N <= 0 {
		return Fit{Start: q.From}, true, 0
	}
	most := 0
	cands := []int64{from}
	for _, r := range m.rs {
		for _, t := range []int64{r.Start.UnixNano(), r.End.UnixNano()} {
			if t > from && t <= until {
				cands = append(cands, t)
			}
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	for _, t := range cands {
		f := Fit{Start: time.Unix(0, t).UTC()}
		total := 0
		for h := range m.caps {
			if q.Hosts != nil && !q.Hosts(HostID(h)) {
				continue
			}
			if c := min(m.fitCount(HostID(h), t, t+d, q.Per, q.Ignore), q.N); c > 0 {
				f.Counts = append(f.Counts, HostCount{Host: HostID(h), Count: c})
				total += c
			}
		}
		if total >= q.N {
			return f, true, most
		}
		most = max(most, total)
	}
	return Fit{}, false, most
}

// wouldOverflow applies the Add/SetEnd checking rule to adding r over
// [s, e) on its host.
func (m *model) wouldOverflow(h HostID, s, e int64, r Resources) bool {
	used := m.used(h, s, e, nil)
	for j, v := range r {
		if v > 0 && used[j]+v > m.caps[h][j] {
			return true
		}
	}
	return false
}

// overloaded reports whether some host is over capacity at some time.
func (m *model) overloaded() bool {
	for h := range m.caps {
		for _, r := range m.rs {
			if r.Host != HostID(h) {
				continue
			}
			for j, u := range m.usageAt(HostID(h), r.Start.UnixNano(), nil) {
				if u > m.caps[h][j] {
					return true
				}
			}
		}
	}
	return false
}

// forLease lists a lease's reservations by start then ID.
func (m *model) sorted(keep func(Reservation) bool) []Reservation {
	var out []Reservation
	for _, r := range m.rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Reservation) int {
		if a.Host != b.Host {
			return int(a.Host - b.Host)
		}
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return int(a.ID) - int(b.ID)
	})
	return out
}

// sameFit compares two fits.
func sameFit(a, b Fit) bool {
	return a.Start.Equal(b.Start) && slices.Equal(a.Counts, b.Counts)
}

// sameRes compares reservation lists field by field.
func sameRes(a, b []Reservation) bool {
	return slices.EqualFunc(a, b, func(x, y Reservation) bool {
		return x.ID == y.ID && x.Lease == y.Lease && x.Host == y.Host && x.Kind == y.Kind &&
			x.Start.Equal(y.Start) && x.End.Equal(y.End) && slices.Equal(x.Res, y.Res)
	})
}

func mustAddHost(t testing.TB, tab *Table, name string, c Resources) HostID {
	t.Helper()
	h, err := tab.AddHost(name, c)
	if err != nil {
		t.Fatalf("AddHost(%q, %v): %v", name, c, err)
	}
	return h
}

func mustAdd(t testing.TB, tab *Table, r Reservation) ResID {
	t.Helper()
	id, err := tab.Add(r)
	if err != nil {
		t.Fatalf("Add(%+v): %v", r, err)
	}
	return id
}

// room is how many of q's VMs the allowed hosts hold when empty (each
// capped at q.N), as EarliestFit's first check counts them.
func (m *model) room(q Query) int {
	total := 0
	for h, c := range m.caps {
		if q.Hosts != nil && !q.Hosts(HostID(h)) {
			continue
		}
		best := q.N
		for j, p := range q.Per {
			if p > 0 {
				best = min(best, int(max(c[j], 0)/p))
			}
		}
		total += best
	}
	return total
}
