package slottable

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestFreedSince checks FreedSince's promise over random operation
// sequences (reservations added, removed, added back identical,
// shortened and lengthened, hosts closed and opened, history forgotten):
// whenever it says nothing was freed over [from, to) since a mark, every
// host open now was open at the mark and, without the asking lease's
// reservations, uses at every instant of [from, to) at least what it
// used then. The table as it was at each mark is a Clone.
func TestFreedSince(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0xf4eed))
		g := gen{r: r, dims: 2, n: 2 + int(seed%3), unit: units[seed%2]}
		tab := g.table(t)
		tab.TrackFreed(true)
		type snap struct {
			mark uint64
			was  *Table
		}
		var snaps []snap
		var ids []ResID
		var removed []Reservation
		said, checked := 0, 0
		for step := range 1200 {
			switch k := r.IntN(20); {
			case g.churn(t, tab, k, &ids, &removed):
			case k < 15 && r.IntN(10) == 0:
				tab.ForgetFreed(tab.FreedMark() - min(tab.FreedMark(), uint64(r.IntN(10))))
			case k < 17:
				snaps = append(snaps, snap{tab.FreedMark(), tab.Clone()})
				if len(snaps) > 6 {
					snaps = snaps[1:]
				}
			default:
				if len(snaps) == 0 {
					continue
				}
				sn := snaps[len(snaps)-1-r.IntN(min(2, len(snaps)))]
				lease := uint64(r.IntN(4))
				a := r.IntN(70)
				from, to := g.at(a), g.at(a+1+r.IntN(8))
				if tab.FreedSince(sn.mark, lease, from, to) {
					said++
					continue
				}
				checked++
				ignore := func(res Reservation) bool { return res.Lease == lease }
				for h := range HostID(g.n) {
					if tab.Closed(h) {
						continue
					}
					if sn.was.Closed(h) {
						t.Fatalf("seed %d step %d: host %d opened since mark %d, FreedSince false", seed, step, h, sn.mark)
					}
					points := append([]time.Time{from}, tab.ChangePoints(from, to)...)
					points = append(points, sn.was.ChangePoints(from, to)...)
					for _, p := range points {
						if p.Before(from) || !p.Before(to) {
							continue
						}
						now, then := tab.UsedIgnoring(h, p, p, ignore), sn.was.UsedIgnoring(h, p, p, ignore)
						for j := range now {
							if now[j] < then[j] {
								t.Fatalf("seed %d step %d: host %d at %v uses %v, %v at mark %d; FreedSince [%v, %v) false",
									seed, step, h, p, now, then, sn.mark, from, to)
							}
						}
					}
				}
			}
		}
		if said == 0 || checked == 0 {
			t.Fatalf("seed %d: FreedSince true %d times, false %d: draw both", seed, said, checked)
		}
	}
}

// TestFitCountAt checks FitCountAt against FitCount (capped) and
// UsedIgnoring at the interval's first instant, with and without an
// ignore, on random tables.
func TestFitCountAt(t *testing.T) {
	for _, seed := range seedsFor(t) {
		r := rand.New(rand.NewPCG(seed, seed^0xc0a7))
		g := gen{r: r, dims: 2, n: 3, unit: units[seed%2]}
		tab := g.table(t)
		for range 40 {
			_, _ = tab.Add(g.reservation())
		}
		for range 300 {
			p := g.probe()
			limit := 1 + r.IntN(5)
			var ignore func(Reservation) bool
			if r.IntN(2) == 0 {
				skip := uint64(r.IntN(4))
				ignore = func(res Reservation) bool { return res.Lease == skip }
			}
			at := Resources{-1, -1}
			got := tab.FitCountAt(p.host, p.from, p.to, p.per, limit, ignore, false, at)
			want := min(tab.FitCount(p.host, p.from, p.to, p.per, ignore), limit)
			if got != want {
				t.Fatalf("seed %d: FitCountAt(%d, %v, %v, %v, %d) = %d, FitCount capped %d", seed, p.host, p.from, p.to, p.per, limit, got, want)
			}
			if tab.Closed(p.host) || tab.checkRes(p.per) != nil {
				continue
			}
			if u := tab.UsedIgnoring(p.host, p.from, p.from, ignore); !slices.Equal(at, u) {
				t.Fatalf("seed %d: usage at %v is %v, UsedIgnoring says %v", seed, p.from, at, u)
			}
		}
	}
}

// TestFitMemoAnswers: a memo answers the question it was made for, from
// its From and at its start, and no other.
func TestFitMemoAnswers(t *testing.T) {
	tab := New()
	if _, err := tab.AddHost("h", Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	tab.TrackFreed(true)
	if _, err := tab.Add(Reservation{Lease: 1, Host: 0, Start: base, End: base.Add(time.Hour), Res: Resources{100, 1024}}); err != nil {
		t.Fatal(err)
	}
	q := Query{N: 1, Per: Resources{100, 1024}, Duration: time.Hour, From: base}
	var m FitMemo
	if m.Answers(q, base.Add(time.Hour)) {
		t.Fatal("an empty memo answers")
	}
	fit, ok := tab.EarliestFitMemo(q, 2, &m)
	if !ok || !fit.Start.Equal(base.Add(time.Hour)) {
		t.Fatalf("fit %v %v, want the end of lease 1", fit, ok)
	}
	if !m.Answers(q, base.Add(time.Hour)) {
		t.Fatal("the memo does not answer its own question")
	}
	for name, bad := range map[string]Query{
		"N":        {N: 2, Per: q.Per, Duration: q.Duration, From: q.From},
		"Per":      {N: 1, Per: Resources{50, 1024}, Duration: q.Duration, From: q.From},
		"Duration": {N: 1, Per: q.Per, Duration: 2 * time.Hour, From: q.From},
		"From":     {N: 1, Per: q.Per, Duration: q.Duration, From: base.Add(time.Minute)},
	} {
		if m.Answers(bad, base.Add(time.Hour)) {
			t.Errorf("the memo answers another %s", name)
		}
	}
	if m.Answers(q, base.Add(2*time.Hour)) {
		t.Error("the memo answers another start")
	}
}
