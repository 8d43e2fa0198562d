package scheduler

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// benchFull is a saved cluster of hosts hosts of 4 cores and 8 GB, full
// with 2 running external leases of 2 VMs (1 core, 2 GB each) per host:
// 2×hosts preemptable leases, a third each suspendable, cancellable and
// migratable, running 4 to 12 hours. When future is not zero it also holds
// that many local one-VM advance reservations of an hour, 1 to 30 days
// ahead: leases that are never candidates for a preemption now. The queue
// is empty. It is kept as JSON (Save and State) so that every iteration
// restores a fresh copy (the preemption changes the leases); restore makes
// one.
//
// Scheduling 20,000 leases one by one onto 10,000 hosts takes an hour, so
// the cluster is made of tiles: a block of 100 hosts is scheduled through
// Submit, and its saved leases are copied onto the other blocks with their
// IDs and hosts shifted.
type benchFull struct {
	hosts int
	now   time.Time
	state []byte
	saved []byte
}

var benchFulls = map[[2]int]*benchFull{}

const benchTile = 100

func benchHostsTable(tb testing.TB, hosts int) *slottable.Table {
	tb.Helper()
	t := slottable.New()
	for i := 0; i < hosts; i++ {
		if _, err := t.AddHost(fmt.Sprintf("host%05d", i), slottable.Resources{400, 8192}); err != nil {
			tb.Fatal(err)
		}
	}
	return t
}

// benchTileLeases schedules one tile: benchTile hosts full of running
// leases and future advance reservations later on.
func benchTileLeases(tb testing.TB, future int) (SavedState, []SavedLease) {
	tb.Helper()
	s, err := New(DefaultConfig(), benchHostsTable(tb, benchTile), benchEpoch, nil)
	if err != nil {
		tb.Fatal(err)
	}
	classes := []Class{Suspendable, Cancellable, Migratable}
	for i := 0; i < 2*benchTile; i++ {
		r := Request{Kind: BestEffort, VMs: 2, CPU: 100, Memory: 2048, Origin: External,
			Class: classes[i%3], Duration: time.Duration(4*60+(i*37)%(8*60)) * time.Minute}
		if l, _ := s.Submit(benchEpoch, r); l.State != Scheduled && l.State != Running {
			tb.Fatalf("lease %d is %s (%s: %s), want scheduled", l.ID, l.State, l.Reason, l.Detail)
		}
	}
	for i := 0; i < future; i++ {
		start := 24*time.Hour + time.Duration(int64(29*24*time.Hour)/int64(future)*int64(i))
		r := Request{Kind: AdvanceReservation, Start: start, VMs: 1, CPU: 100, Memory: 1024,
			Duration: time.Hour, Class: NonPreemptable, Origin: Local}
		if l, _ := s.Submit(benchEpoch, r); l.State != Scheduled {
			tb.Fatalf("lease %d is %s (%s: %s), want scheduled", l.ID, l.State, l.Reason, l.Detail)
		}
	}
	s.Advance(benchEpoch.Add(time.Hour))
	var saved []SavedLease
	for _, l := range s.Leases() {
		sl, _ := s.Save(l.ID)
		saved = append(saved, sl)
	}
	return s.State(), saved
}

func getBenchFull(tb testing.TB, hosts, future int) *benchFull {
	tb.Helper()
	if bf := benchFulls[[2]int{hosts, future}]; bf != nil {
		return bf
	}
	tiles := hosts / benchTile
	st, tile := benchTileLeases(tb, future/tiles)
	one, err := json.Marshal(tile)
	if err != nil {
		tb.Fatal(err)
	}
	ids := LeaseID(len(tile))
	var all []SavedLease
	for k := 0; k < tiles; k++ {
		var copied []SavedLease
		if err := json.Unmarshal(one, &copied); err != nil {
			tb.Fatal(err)
		}
		shift := slottable.HostID(k * benchTile)
		for i := range copied {
			sl := &copied[i]
			sl.ID += LeaseID(k) * ids
			for j := range sl.Hosts {
				sl.Hosts[j] += shift
			}
			for j := range sl.AllHosts {
				sl.AllHosts[j] += shift
			}
			for p := range sl.Plan {
				for j := range sl.Plan[p].Hosts {
					sl.Plan[p].Hosts[j] += shift
				}
				for j := range sl.Plan[p].Reservations {
					sl.Plan[p].Reservations[j].Host += shift
				}
			}
			if len(sl.PrevHost)+len(sl.Avoid)+len(sl.Promise) > 0 || sl.Pending != nil {
				tb.Fatalf("lease %d: a tile's lease has state the tiling does not shift", sl.ID)
			}
		}
		all = append(all, copied...)
	}
	st.NextID = LeaseID(tiles)*ids + 1
	bf := &benchFull{hosts: hosts, now: benchEpoch.Add(time.Hour)}
	if bf.state, err = json.Marshal(st); err != nil {
		tb.Fatal(err)
	}
	if bf.saved, err = json.Marshal(all); err != nil {
		tb.Fatal(err)
	}
	benchFulls[[2]int{hosts, future}] = bf
	return bf
}

func (bf *benchFull) restore(tb testing.TB) *Scheduler {
	tb.Helper()
	var st SavedState
	var saved []SavedLease
	if err := json.Unmarshal(bf.state, &st); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(bf.saved, &saved); err != nil {
		tb.Fatal(err)
	}
	s, err := Restore(DefaultConfig(), benchHostsTable(tb, bf.hosts), benchEpoch, st, saved, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkPreemptDecision times the whole decision on a local advance
// reservation that fits only by preempting (8 VMs of 1 core / 2 GB for
// an hour, starting 30 to 65 minutes ahead, policy MOV): one Submit, which
// finds no room, lists the candidates, searches the sets, lays the
// suspensions out, reserves everything and plans the requeued victims
// again. Each iteration starts from a fresh copy of the full cluster
// (benchFull, not timed).
//
// hosts=N is a cluster of N hosts with 2N preemptable running leases,
// all candidates; future=K adds, to 1000 hosts, K leases that are not
// candidates (advance reservations later on), to show what they cost.
// p99-ms is the 99th percentile of the iterations' times (run with
// -benchtime 200x or more for it to mean something).
func BenchmarkPreemptDecision(b *testing.B) {
	type size struct{ hosts, future int }
	var sizes []size
	for _, h := range []int{100, 1000, 10000} {
		sizes = append(sizes, size{h, 0})
	}
	for _, k := range []int{2000, 20000} {
		sizes = append(sizes, size{1000, k})
	}
	for _, sz := range sizes {
		name := fmt.Sprintf("hosts=%d", sz.hosts)
		if sz.future > 0 {
			name = fmt.Sprintf("hosts=%d+future=%d", sz.hosts, sz.future)
		}
		b.Run(name, func(b *testing.B) {
			bf := getBenchFull(b, sz.hosts, sz.future)
			var times []time.Duration
			victims := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := bf.restore(b)
				at := bf.now.Sub(benchEpoch)
				req := Request{Kind: AdvanceReservation, Arrival: at, Start: at + 30*time.Minute + time.Duration(i%8)*5*time.Minute,
					VMs: 8, CPU: 100, Memory: 2048, Duration: time.Hour, Class: NonPreemptable, Origin: Local}
				preemptions := s.Stats().Preemptions
				runtime.GC() // the restore's garbage is not the decision's
				b.StartTimer()
				t0 := time.Now()
				l, _ := s.Submit(bf.now, req)
				times = append(times, time.Since(t0))
				b.StopTimer()
				if l.State != Scheduled {
					b.Fatalf("lease %d is %s (%s: %s), want scheduled", l.ID, l.State, l.Reason, l.Detail)
				}
				if s.Stats().Preemptions == preemptions {
					b.Fatalf("lease %d fitted without preempting", l.ID)
				}
				for _, o := range s.Leases() {
					if o.Preemptions > 0 && o.ID != l.ID {
						victims++
					}
				}
				b.StartTimer()
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[(len(times)*99+99)/100-1].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(victims)/float64(b.N), "victims/op")
		})
	}
}
