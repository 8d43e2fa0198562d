package slottable

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// spanRes is a reservation in a hand-made EarliestFit scenario.
type spanRes struct {
	host       HostID
	start, end int
	cpu        int64
	lease      uint64
}

const sec = time.Second

func lease7(r Reservation) bool { return r.Lease == 7 }
func only1(h HostID) bool       { return h == 1 }

// earliestCase is an EarliestFit scenario worked out by hand. Every host
// has 4096 MB; reservations hold cpu only.
type earliestCase struct {
	name   string
	caps   []int64 // cpu per host; every host has 4096 MB
	rs     []spanRes
	q      Query // From/Until in seconds via from/until below
	from   int
	until  int // 0: none
	ok     bool
	start  int
	counts []HostCount
}

// earliestCases: the expected answer is worked out in each comment.
var earliestCases = []earliestCase{{
	// Nothing reserved: 4 fit per host, capped at N=3.
	name: "empty cluster", caps: []int64{400, 400},
	q: Query{N: 3, Per: res(100, 512), Duration: 10 * sec}, from: 5,
	ok: true, start: 5, counts: []HostCount{{0, 3}, {1, 3}},
}, {
	// Free only on [10,15), 5s < 10s; free for good from 50.
	name: "hole too short before a long block", caps: []int64{400},
	rs: []spanRes{{0, 0, 10, 400, 1}, {0, 15, 50, 400, 7}},
	q:  Query{N: 1, Per: res(100, 0), Duration: 10 * sec},
	ok: true, start: 50, counts: []HostCount{{0, 1}},
}, {
	// At 0: 1+2+0 = 3 < 5. At 20 host 2 frees: 1+2+4 = 7 >= 5.
	name: "N spread over several hosts", caps: []int64{400, 400, 400},
	rs: []spanRes{{0, 0, 100, 300, 1}, {1, 0, 100, 200, 1}, {2, 0, 20, 400, 1}},
	q:  Query{N: 5, Per: res(100, 0), Duration: 10 * sec},
	ok: true, start: 20, counts: []HostCount{{0, 1}, {1, 2}, {2, 4}},
}, {
	// As "hole too short", but the answer (50) is after Until (40).
	name: "until cuts it off", caps: []int64{400},
	rs: []spanRes{{0, 0, 10, 400, 1}, {0, 15, 50, 400, 7}},
	q:  Query{N: 1, Per: res(100, 0), Duration: 10 * sec}, until: 40,
	ok: false,
}, {
	// Until is inclusive: a start at exactly 50 is allowed.
	name: "until at the answer", caps: []int64{400},
	rs: []spanRes{{0, 0, 10, 400, 1}, {0, 15, 50, 400, 7}},
	q:  Query{N: 1, Per: res(100, 0), Duration: 10 * sec}, until: 50,
	ok: true, start: 50, counts: []HostCount{{0, 1}},
}, {
	// Ignoring lease 7's [15,50) block, the host is free from 10
	// (4 fit, capped at N=1).
	name: "ignore makes it fit earlier", caps: []int64{400},
	rs: []spanRes{{0, 0, 10, 400, 1}, {0, 15, 50, 400, 7}},
	q:  Query{N: 1, Per: res(100, 0), Duration: 10 * sec, Ignore: lease7},
	ok: true, start: 10, counts: []HostCount{{0, 1}},
}, {
	// 800/200 = 4 VMs per host; 2+4 = 6 at once at 0.
	name: "multi-VM per host", caps: []int64{800, 800},
	rs: []spanRes{{0, 0, 30, 400, 1}},
	q:  Query{N: 6, Per: res(200, 0), Duration: 10 * sec},
	ok: true, start: 0, counts: []HostCount{{0, 2}, {1, 4}},
}, {
	// 8 need host 0 whole: it frees at 30.
	name: "multi-VM per host, all of it", caps: []int64{800, 800},
	rs: []spanRes{{0, 0, 30, 400, 1}},
	q:  Query{N: 8, Per: res(200, 0), Duration: 10 * sec},
	ok: true, start: 30, counts: []HostCount{{0, 4}, {1, 4}},
}, {
	// The cluster never holds more than 4+4.
	name: "N larger than the cluster", caps: []int64{800, 800},
	q:  Query{N: 9, Per: res(200, 0), Duration: 10 * sec},
	ok: false,
}, {
	// Only host 1 allowed: 4 fit at 0.
	name: "host filter", caps: []int64{800, 800},
	rs: []spanRes{{1, 0, 5, 0, 1}},
	q:  Query{N: 4, Per: res(200, 0), Duration: 10 * sec, Hosts: only1},
	ok: true, start: 0, counts: []HostCount{{1, 4}},
}, {
	name: "host filter too small", caps: []int64{800, 800},
	q:  Query{N: 5, Per: res(200, 0), Duration: 10 * sec, Hosts: only1},
	ok: false,
}, {
	// [0,15) meets the 200 at [10,20): 2 fit < 3. Hole [20,30) is 10s
	// < 15s. From 40 all 4 fit, capped at N=3.
	name: "duration across a level change", caps: []int64{400},
	rs: []spanRes{{0, 10, 20, 200, 1}, {0, 30, 40, 400, 1}},
	q:  Query{N: 3, Per: res(100, 0), Duration: 15 * sec},
	ok: true, start: 40, counts: []HostCount{{0, 3}},
}, {
	// Two VMs at 0 need [0,15) with 2 free: the 200 from 10 leaves 2.
	name: "fits at From through a partial block", caps: []int64{400},
	rs: []spanRes{{0, 10, 20, 200, 1}, {0, 30, 40, 400, 1}},
	q:  Query{N: 2, Per: res(100, 0), Duration: 15 * sec},
	ok: true, start: 0, counts: []HostCount{{0, 2}},
}, {
	// From inside a full block: wait for its end at 100.
	name: "from inside a block", caps: []int64{400},
	rs: []spanRes{{0, 0, 100, 400, 1}},
	q:  Query{N: 1, Per: res(100, 0), Duration: 10 * sec}, from: 50,
	ok: true, start: 100, counts: []HostCount{{0, 1}},
}, {
	// Per all zero: every host fits N.
	name: "zero-size VMs", caps: []int64{400},
	rs: []spanRes{{0, 0, 100, 400, 1}},
	q:  Query{N: 5, Per: res(0, 0), Duration: 10 * sec},
	ok: true, start: 0, counts: []HostCount{{0, 5}},
}, {
	// 4096/2048 = 2 per host, one host: 3 never fit.
	name: "memory bound", caps: []int64{400},
	q:  Query{N: 3, Per: res(100, 2048), Duration: 10 * sec},
	ok: false,
}, {
	name: "until before from", caps: []int64{400},
	q: Query{N: 1, Per: res(100, 0), Duration: 10 * sec}, from: 10, until: 5,
	ok: false,
}, {
	name: "bad per", caps: []int64{400},
	q:  Query{N: 1, Per: res(100), Duration: 10 * sec},
	ok: false,
}}

func TestEarliestFit(t *testing.T) {
	for _, c := range earliestCases {
		t.Run(c.name, func(t *testing.T) {
			tab := New()
			for i, cpu := range c.caps {
				mustAddHost(t, tab, string(rune('a'+i)), res(cpu, 4096))
			}
			for _, r := range c.rs {
				mustAdd(t, tab, Reservation{Lease: r.lease, Host: r.host, Start: at(r.start), End: at(r.end), Res: res(r.cpu, 0)})
			}
			q := c.q
			q.From = at(c.from)
			if c.until != 0 {
				q.Until = at(c.until)
			}
			fit, ok := tab.EarliestFit(q)
			if ok != c.ok {
				t.Fatalf("EarliestFit ok = %v, want %v (fit %+v)", ok, c.ok, fit)
			}
			if !ok {
				return
			}
			if !fit.Start.Equal(at(c.start)) || !slices.Equal(fit.Counts, c.counts) {
				t.Errorf("EarliestFit = %v %v, want %v %v", fit.Start, fit.Counts, at(c.start), c.counts)
			}
		})
	}
}

// TestEarliestFitFarHorizon puts the answer far beyond the first search
// horizon (many widenings) and checks it is still exact.
func TestEarliestFitFarHorizon(t *testing.T) {
	tab := New()
	mustAddHost(t, tab, "a", res(400, 4096))
	// Busy [0, 1e6) except 5-second holes every 1000 s; a 1-minute VM
	// only fits after the last block, at 1e6.
	for s := 0; s < 1_000_000; s += 1000 {
		mustAdd(t, tab, Reservation{Host: 0, Start: at(s), End: at(s + 995), Res: res(400, 0)})
	}
	fit, ok := tab.EarliestFit(Query{N: 1, Per: res(100, 0), Duration: time.Minute, From: at(0)})
	if !ok || !fit.Start.Equal(at(999_995)) {
		// the last block ends at 999*1000+995 = 999995
		t.Fatalf("EarliestFit = %v %v, want %v", fit.Start, ok, at(999_995))
	}
	// With a 5-second VM the first hole, at 995, is enough.
	fit, ok = tab.EarliestFit(Query{N: 1, Per: res(100, 0), Duration: 5 * time.Second, From: at(0)})
	if !ok || !fit.Start.Equal(at(995)) {
		t.Fatalf("EarliestFit(5s) = %v %v, want %v", fit.Start, ok, at(995))
	}
}

// TestEarliestFitLocation: a computed start comes back in From's location.
func TestEarliestFitLocation(t *testing.T) {
	tab := New()
	mustAddHost(t, tab, "a", res(400, 4096))
	mustAdd(t, tab, Reservation{Host: 0, Start: at(0), End: at(10), Res: res(400, 0)})
	loc := time.FixedZone("X", 3600)
	fit, ok := tab.EarliestFit(Query{N: 1, Per: res(100, 0), Duration: time.Second, From: at(0).In(loc)})
	if !ok || !fit.Start.Equal(at(10)) || fit.Start.Location() != loc {
		t.Fatalf("EarliestFit = %v %v, want %v in %v", fit.Start, ok, at(10), loc)
	}
}

// TestHostIn checks hostIn against slices.BinarySearch over sorted host
// lists with repeats (a host holding several of a lease's reservations).
func TestHostIn(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var hosts []HostID
		for range r.IntN(12) {
			hosts = append(hosts, HostID(r.IntN(20)))
		}
		slices.Sort(hosts)
		for h := HostID(0); h < 22; h++ {
			wi, wok := slices.BinarySearch(hosts, h)
			if i, ok := hostIn(hosts, h); i != wi || ok != wok {
				t.Fatalf("hostIn(%v, %d) = %d %v, want %d %v", hosts, h, i, ok, wi, wok)
			}
		}
	}
}
