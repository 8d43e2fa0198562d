package slottable

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchSizes are the table sizes: reservations spread over hosts.
var benchSizes = []struct{ res, hosts int }{
	{1_000, 100}, {10_000, 100}, {100_000, 100},
	{1_000, 1000}, {10_000, 1000}, {100_000, 1000},
}

func sizeName(res, hosts int) string {
	k := map[int]string{1_000: "1k", 10_000: "10k", 100_000: "100k", 1_000_000: "1M"}[res]
	return fmt.Sprintf("res=%s/hosts=%d", k, hosts)
}

// benchTable is a table with res random reservations over hosts hosts of
// 800 cpu / 8192 MB, and the horizon they span. The horizon grows with
// the reservations per host so that load stays alike (about 2.5
// reservations at a time per host) and only the size changes.
type benchTable struct {
	tab     *Table
	horizon time.Duration
	rng     *rand.Rand
}

var benchTables = map[[2]int]*benchTable{}

func benchReservation(r *rand.Rand, hosts int, horizon time.Duration) Reservation {
	s := time.Duration(r.Int64N(int64(horizon)))
	d := 30*time.Minute + time.Duration(r.Int64N(int64(210*time.Minute)))
	return Reservation{
		Lease: r.Uint64N(1 << 20),
		Host:  HostID(r.IntN(hosts)),
		Start: base.Add(s),
		End:   base.Add(s + d),
		Res:   Resources{100 * (1 + r.Int64N(4)), 512 * (1 + r.Int64N(4))},
	}
}

func getBench(b *testing.B, res, hosts int) *benchTable {
	key := [2]int{res, hosts}
	if bt := benchTables[key]; bt != nil {
		return bt
	}
	perHost := float64(res) / float64(hosts)
	horizon := time.Duration(perHost * float64(135*time.Minute) / 2.5)
	r := rand.New(rand.NewPCG(uint64(res), uint64(hosts)))
	tab := New()
	for i := range hosts {
		if _, err := tab.AddHost(fmt.Sprint("h", i), Resources{800, 8192}); err != nil {
			b.Fatal(err)
		}
	}
	for range res {
		if _, err := tab.Add(benchReservation(r, hosts, horizon)); err != nil {
			b.Fatal(err)
		}
	}
	bt := &benchTable{tab: tab, horizon: horizon, rng: r}
	benchTables[key] = bt
	return bt
}

func BenchmarkAddRemove(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sizeName(sz.res, sz.hosts), func(b *testing.B) {
			bt := getBench(b, sz.res, sz.hosts)
			rs := make([]Reservation, 1024)
			for i := range rs {
				rs[i] = benchReservation(bt.rng, sz.hosts, bt.horizon)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				id, err := bt.tab.Add(rs[i%len(rs)])
				if err != nil {
					b.Fatal(err)
				}
				if err := bt.tab.Remove(id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchQueries are random query origins inside the horizon.
func benchQueries(bt *benchTable, hosts int) []Query {
	qs := make([]Query, 256)
	for i := range qs {
		qs[i] = Query{
			N:        4,
			Per:      Resources{200, 1024},
			Duration: time.Hour,
			From:     base.Add(time.Duration(bt.rng.Int64N(int64(bt.horizon)))),
		}
	}
	return qs
}

func BenchmarkEarliestFit(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sizeName(sz.res, sz.hosts), func(b *testing.B) {
			bt := getBench(b, sz.res, sz.hosts)
			qs := benchQueries(bt, sz.hosts)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok := bt.tab.EarliestFit(qs[i%len(qs)]); !ok {
					b.Fatal("no fit")
				}
			}
		})
	}
}

// BenchmarkEarliestFitIgnore is EarliestFit with an Ignore function (the
// preemption question), which takes the slower per-reservation path.
// BenchmarkFitNow asks whether 4 VMs may start at one instant (From and
// Until the same: what aggressive backfilling asks of every queued lease
// after an early end) for 1 and 24 hours, answered off each host's
// aggregates ("one"), and for comparison the same question through the
// sweep, which a window of one nanosecond forces ("sweep"; the answer may
// differ in that one nanosecond, the work does not).
func BenchmarkFitNow(b *testing.B) {
	for _, sz := range benchSizes {
		for _, c := range []struct {
			way string
			d   time.Duration
		}{{"one", time.Hour}, {"sweep", time.Hour}, {"one", 24 * time.Hour}, {"sweep", 24 * time.Hour}} {
			b.Run(fmt.Sprintf("%s/d=%v/%s", sizeName(sz.res, sz.hosts), c.d, c.way), func(b *testing.B) {
				bt := getBench(b, sz.res, sz.hosts)
				qs := benchQueries(bt, sz.hosts)
				for i := range qs {
					qs[i].Duration, qs[i].Until = c.d, qs[i].From
					if c.way == "sweep" {
						qs[i].Until = qs[i].From.Add(time.Nanosecond)
					}
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					bt.tab.EarliestFit(qs[i%len(qs)])
				}
			})
		}
	}
}

func BenchmarkEarliestFitIgnore(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sizeName(sz.res, sz.hosts), func(b *testing.B) {
			bt := getBench(b, sz.res, sz.hosts)
			qs := benchQueries(bt, sz.hosts)
			for i := range qs {
				qs[i].N = 40
				qs[i].Ignore = func(r Reservation) bool { return r.Lease%8 == 0 }
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok := bt.tab.EarliestFit(qs[i%len(qs)]); !ok {
					b.Fatal("no fit")
				}
			}
		})
	}
}

func BenchmarkUsed(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sizeName(sz.res, sz.hosts), func(b *testing.B) {
			bt := getBench(b, sz.res, sz.hosts)
			type q struct {
				h    HostID
				from time.Time
			}
			qs := make([]q, 1024)
			for i := range qs {
				qs[i] = q{HostID(bt.rng.IntN(sz.hosts)), base.Add(time.Duration(bt.rng.Int64N(int64(bt.horizon))))}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				x := qs[i%len(qs)]
				bt.tab.Used(x.h, x.from, x.from.Add(4*time.Hour))
			}
		})
	}
}

// scaleSizes are the table sizes BenchmarkScale runs at, over scaleHosts
// hosts: 1 to 1,000 reservations a host, the load alike (getBench).
var scaleSizes = []int{1_000, 10_000, 100_000, 1_000_000}

const scaleHosts = 1000

func scaleName(op string, res int) string {
	k := map[int]string{1_000: "1k", 10_000: "10k", 100_000: "100k", 1_000_000: "1M"}[res]
	return fmt.Sprintf("%s/res=%s", op, k)
}

// BenchmarkScale times the slot table's operations one at a time as the
// table grows from 1k to 1M reservations on 1000 hosts, so that the growth
// per operation shows: insert (Add), remove (Remove), the availability
// of a host over an interval (Available, what FitCount and the planners
// read) and the earliest start of 4 VMs (EarliestFit, the scheduler's main
// question, which looks at every host). Insert and remove run in batches
// of at most a tenth of the table, put back between batches (not timed),
// so that the size stays what the name says. The tables are built once
// (not timed) and kept for the other benchmarks.
func BenchmarkScale(b *testing.B) {
	for _, res := range scaleSizes {
		b.Run(scaleName("insert", res), func(b *testing.B) {
			bt := getBench(b, res, scaleHosts)
			rs := scaleReservations(bt, 4096)
			batch := min(1000, res/10)
			ids := make([]ResID, 0, batch)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id, err := bt.tab.Add(rs[i%len(rs)])
				if err != nil {
					b.Fatal(err)
				}
				if ids = append(ids, id); len(ids) == batch || i == b.N-1 {
					b.StopTimer()
					scaleRemove(b, bt.tab, ids)
					ids = ids[:0]
					b.StartTimer()
				}
			}
		})
		b.Run(scaleName("remove", res), func(b *testing.B) {
			bt := getBench(b, res, scaleHosts)
			rs := scaleReservations(bt, 4096)
			batch := min(1000, res/10)
			var ids []ResID
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(ids) == 0 {
					b.StopTimer()
					for k := range min(batch, b.N-i) {
						id, err := bt.tab.Add(rs[(i+k)%len(rs)])
						if err != nil {
							b.Fatal(err)
						}
						ids = append(ids, id)
					}
					b.StartTimer()
				}
				if err := bt.tab.Remove(ids[len(ids)-1]); err != nil {
					b.Fatal(err)
				}
				ids = ids[:len(ids)-1]
			}
		})
		b.Run(scaleName("available", res), func(b *testing.B) {
			bt := getBench(b, res, scaleHosts)
			type q struct {
				h    HostID
				from time.Time
			}
			qs := make([]q, 4096)
			for i := range qs {
				qs[i] = q{HostID(bt.rng.IntN(scaleHosts)), base.Add(time.Duration(bt.rng.Int64N(int64(bt.horizon))))}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x := qs[i%len(qs)]
				bt.tab.Available(x.h, x.from, x.from.Add(2*time.Hour))
			}
		})
		b.Run(scaleName("earliest", res), func(b *testing.B) {
			bt := getBench(b, res, scaleHosts)
			qs := benchQueries(bt, scaleHosts)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, ok := bt.tab.EarliestFit(qs[i%len(qs)]); !ok {
					b.Fatal("no fit")
				}
			}
		})
	}
}

func scaleReservations(bt *benchTable, n int) []Reservation {
	rs := make([]Reservation, n)
	for i := range rs {
		rs[i] = benchReservation(bt.rng, scaleHosts, bt.horizon)
	}
	return rs
}

func scaleRemove(b *testing.B, t *Table, ids []ResID) {
	for _, id := range ids {
		if err := t.Remove(id); err != nil {
			b.Fatal(err)
		}
	}
}
