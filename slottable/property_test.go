package slottable

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// propertySeeds are the fixed seeds; each test adds one derived from its
// name.
var propertySeeds = []uint64{1, 2, 3, 42, 1234, 99991}

var units = []time.Duration{time.Second, time.Nanosecond}

func seedsFor(t *testing.T) []uint64 {
	f := fnv.New64a()
	f.Write([]byte(t.Name()))
	return append(slices.Clone(propertySeeds), f.Sum64())
}

// gen draws random tables, operations and probes on a small clock (0..70
// seconds) so that times collide often.
type gen struct {
	r    *rand.Rand
	dims int
	n    int           // hosts
	unit time.Duration // one clock tick: a second, or a nanosecond to catch off-by-ones
}

// at returns tick s.
func (g gen) at(s int) time.Time { return base.Add(time.Duration(s) * g.unit) }

// churn changes tab at random, for k (drawn in [0, 20)) below 14: adds a
// reservation of one of leases 1-4 (k < 6), removes one (k < 9), adds a
// removed one back identical (k < 11), moves an end (k < 13), or closes
// or opens a host; it reports whether k was one of those. ids are the
// reservations added, removed those removed.
func (g gen) churn(tb testing.TB, tab *Table, k int, ids *[]ResID, removed *[]Reservation) bool {
	r := g.r
	switch {
	case k < 6:
		res := g.reservation()
		res.Lease = uint64(1 + r.IntN(4))
		if id, err := tab.Add(res); err == nil {
			*ids = append(*ids, id)
		}
	case k < 9 && len(*ids) > 0:
		i := r.IntN(len(*ids))
		res, _ := tab.Get((*ids)[i])
		if err := tab.Remove((*ids)[i]); err != nil {
			tb.Fatal(err)
		}
		*removed = append(*removed, res)
		*ids = slices.Delete(*ids, i, i+1)
	case k < 11 && len(*removed) > 0: // the same reservation back
		i := r.IntN(len(*removed))
		if id, err := tab.Add((*removed)[i]); err == nil {
			*ids = append(*ids, id)
		}
		*removed = slices.Delete(*removed, i, i+1)
	case k < 13 && len(*ids) > 0:
		i := r.IntN(len(*ids))
		res, _ := tab.Get((*ids)[i])
		_ = tab.SetEnd((*ids)[i], res.Start.Add(time.Duration(1+r.IntN(20))*g.unit))
	case k < 14:
		h := HostID(r.IntN(g.n))
		_ = tab.SetClosed(h, !tab.Closed(h))
	default:
		return false
	}
	return true
}

// table is a new table with the hosts of caps.
func (g gen) table(tb testing.TB) *Table {
	tb.Helper()
	tab := New()
	for _, c := range g.caps() {
		if _, err := tab.AddHost("h", c); err != nil {
			tb.Fatal(err)
		}
	}
	return tab
}

func (g gen) caps() []Resources {
	var out []Resources
	for range g.n {
		c := Resources{int64(400 * (1 + g.r.IntN(2))), int64(2048 * (1 + g.r.IntN(2)))}
		if g.dims == 3 {
			c = append(c, 30)
		}
		out = append(out, c)
	}
	return out
}

func (g gen) vec() Resources {
	v := Resources{int64(100 * g.r.IntN(5)), int64(512 * g.r.IntN(5))}
	if g.dims == 3 {
		v = append(v, int64(10*g.r.IntN(3)))
	}
	return v
}

func (g gen) reservation() Reservation {
	s := g.r.IntN(60)
	return Reservation{
		Lease: uint64(g.r.IntN(4)),
		Host:  HostID(g.r.IntN(g.n)),
		Kind:  Kind(g.r.IntN(5)),
		Start: g.at(s),
		End:   g.at(s + 1 + g.r.IntN(20)),
		Res:   g.vec(),
	}
}

func (g gen) probe() probe {
	f := g.r.IntN(75) - 5
	p := probe{
		host:  HostID(g.r.IntN(g.n)),
		from:  g.at(f),
		to:    g.at(f + g.r.IntN(25)),
		per:   g.vec(),
		lease: g.r.IntN(5) - 1,
		n:     g.r.IntN(9),
		dur:   time.Duration(g.r.IntN(30)) * g.unit,
	}
	switch g.r.IntN(6) {
	case 0, 1:
		p.until = g.at(f + g.r.IntN(40))
	case 2: // may it start at from? (EarliestFit's one-start path)
		p.until = p.from
	}
	if g.r.IntN(3) == 0 {
		p.mask = uint(g.r.IntN(1 << g.n))
	}
	return p
}

// step does one random operation.
func (g gen) step(h *harness) {
	switch k := g.r.IntN(20); {
	case k < 10:
		h.add(g.reservation())
	case k < 14:
		h.remove(g.r.IntN(1 << 20))
	case k < 17:
		h.setEnd(g.r.IntN(1<<20), time.Duration(g.r.IntN(25))*g.unit)
	case k < 19:
		h.query(g.probe())
	default:
		h.tab.SetChecking(!h.tab.Checking())
	}
}

// TestProperty runs random operation sequences against the brute-force
// model, comparing every answer (see harness).
func TestProperty(t *testing.T) {
	for _, seed := range seedsFor(t) {
		t.Logf("seed %d", seed)
		g := gen{r: rand.New(rand.NewPCG(seed, seed^0x9e37)), dims: 2 + int(seed%2), n: 1 + int(seed%4), unit: units[seed%5%2]}
		h := newHarness(t, []string{"disk"}[:g.dims-2], g.caps())
		h.tab.SetChecking(seed%3 == 0)
		for i := range 600 {
			g.step(h)
			if i%25 == 0 {
				h.verify()
			}
		}
		h.verify()
		for range 200 {
			h.query(g.probe())
		}
	}
}

// TestCheckingNeverOverloads adds random reservations with checking on:
// Check must always pass and every refused Add must be one the model says
// overflows (the harness checks that).
func TestCheckingNeverOverloads(t *testing.T) {
	for _, seed := range seedsFor(t) {
		t.Logf("seed %d", seed)
		g := gen{r: rand.New(rand.NewPCG(seed, 7)), dims: 2, n: 2, unit: units[seed%2]}
		h := newHarness(t, nil, g.caps())
		h.tab.SetChecking(true)
		for i := range 400 {
			if g.r.IntN(4) == 0 {
				h.remove(g.r.IntN(1 << 20))
			} else if g.r.IntN(3) == 0 {
				h.setEnd(g.r.IntN(1<<20), time.Duration(1+g.r.IntN(30))*g.unit)
			} else {
				h.add(g.reservation())
			}
			if h.m.overloaded() {
				t.Fatalf("step %d: checking let the table go over capacity", i)
			}
			if err := h.tab.Check(); err != nil {
				t.Fatalf("step %d: Check() = %v", i, err)
			}
		}
	}
}

// TestCloneIndependent changes a table and its clone differently and
// checks each against its own model.
func TestCloneIndependent(t *testing.T) {
	for _, seed := range seedsFor(t) {
		t.Logf("seed %d", seed)
		g := gen{r: rand.New(rand.NewPCG(seed, 11)), dims: 2, n: 3, unit: units[seed%2]}
		h := newHarness(t, nil, g.caps())
		for range 150 {
			g.step(h)
		}
		c := &harness{tb: t, tab: h.tab.Clone(), m: h.m.clone(), ids: slices.Clone(h.ids)}
		for range 150 {
			g.step(h)
			g.step(c)
		}
		for len(c.ids) > 0 {
			c.remove(0)
		}
		c.add(g.reservation())
		for _, x := range []*harness{h, c} {
			x.verify()
			for range 100 {
				x.query(g.probe())
			}
		}
	}
}

// TestCloneReusing copies a table again and again, each copy in the
// memory of the one before once that one was changed apart from the
// original (grown, or emptied), and checks the original and every copy
// against their own models, and that a memo made on one copy does not
// hold on the next.
func TestCloneReusing(t *testing.T) {
	for _, seed := range seedsFor(t) {
		g := gen{r: rand.New(rand.NewPCG(seed, 12)), dims: 2, n: 3, unit: units[seed%2]}
		h := newHarness(t, nil, g.caps())
		var old *Table
		var memo FitMemo
		made, checked := false, 0 // made: memo holds on old
		for round := range 8 {
			for range 40 {
				g.step(h)
			}
			c := &harness{tb: t, tab: h.tab.CloneReusing(old), m: h.m.clone(), ids: slices.Clone(h.ids)}
			if made {
				checked++
			}
			if made && c.tab.Holds(&memo) {
				t.Fatalf("seed %d round %d: a memo made on the copy before holds on this one", seed, round)
			}
			c.verify()
			for range 60 {
				g.step(h)
				g.step(c)
			}
			if round%3 == 2 {
				for len(c.ids) > 0 {
					c.remove(0)
				}
			}
			for _, x := range []*harness{h, c} {
				x.verify()
				for range 30 {
					x.query(g.probe())
				}
			}
			c.tab.TrackFreed(true)
			p := g.probe()
			memo = FitMemo{}
			c.tab.EarliestFitMemo(Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from}, 1000, &memo)
			made = c.tab.Holds(&memo)
			old = c.tab
		}
		if checked == 0 {
			t.Fatalf("seed %d: no memo holding on its copy was made to check", seed)
		}
	}
}

// TestScaleCheck grows a table to 20k reservations with checking on,
// churns it, and runs Check (which recomputes every aggregate) on the
// way: the trees stay consistent at a size where they are deep.
func TestScaleCheck(t *testing.T) {
	seed := seedsFor(t)[len(propertySeeds)]
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	tab := New()
	for i := range 50 {
		mustAddHost(t, tab, string(rune('A'+i)), res(1600, 16384))
	}
	tab.SetChecking(true)
	var ids []ResID
	for i := range 30_000 {
		s := r.IntN(100_000)
		id, err := tab.Add(Reservation{Host: HostID(r.IntN(50)), Start: at(s), End: at(s + 1 + r.IntN(3000)),
			Res: res(100*r.Int64N(4), 512*r.Int64N(4)), Lease: r.Uint64N(100)})
		if err == nil {
			ids = append(ids, id)
		}
		if i%3 == 0 && len(ids) > 0 {
			k := r.IntN(len(ids))
			if err := tab.Remove(ids[k]); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, k, k+1)
		}
		if i%10_000 == 9_999 {
			if err := tab.Check(); err != nil {
				t.Fatalf("after %d steps: Check() = %v", i+1, err)
			}
		}
	}
	if tab.Len() != len(ids) || len(ids) < 5000 {
		t.Fatalf("Len() = %d, kept %d", tab.Len(), len(ids))
	}
}

// TestConcurrentReads runs queries from several goroutines at once (for
// the race detector): reads must not touch shared state.
func TestConcurrentReads(t *testing.T) {
	g := gen{r: rand.New(rand.NewPCG(5, 5)), dims: 2, n: 3, unit: time.Second}
	h := newHarness(t, nil, g.caps())
	h.tab.TrackFreed(true)  // the open hosts' usage added up too, its blocks not worked out (cluster.go)
	h.tab.SetChecking(true) // within capacity, so that the profile is read
	for range 200 {
		h.add(g.reservation())
	}
	if h.tab.cl.nOver > 0 || len(h.tab.cl.stale) == 0 {
		t.Fatalf("%d hosts over capacity, %d blocks not worked out: the profile is not read as it should be", h.tab.cl.nOver, len(h.tab.cl.stale))
	}
	probes := make([]probe, 64)
	for i := range probes {
		probes[i] = g.probe()
	}
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, p := range probes[w*16 : (w+1)*16] {
				h.tab.Used(p.host, p.from, p.to)
				h.tab.FitCount(p.host, p.from, p.to, p.per, p.ignore())
				h.tab.EarliestFit(Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from, Ignore: p.ignore()})
				h.tab.EarliestFit(Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from}) // from the profile's first start
				// May it start at from? (the shared room at that instant: instant.go)
				h.tab.EarliestFit(Query{N: p.n, Per: p.per, Duration: p.dur, From: p.from, Until: p.from})
				h.tab.ReservationsOn(p.host, p.from, p.to)
				h.tab.ChangePoints(p.from, p.to)
			}
		}()
	}
	for range 4 {
		<-done
	}
}
