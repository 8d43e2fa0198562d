package scheduler

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// benchSizes are the cluster sizes the decision benchmarks run at, so that
// growth with the cluster is visible.
var benchSizes = []int{100, 1000}

var benchEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// benchBusy is a scheduler over hosts hosts of 4 cores and 8 GB, as a
// cluster looks two hours into a busy day. Local advance reservations for
// about a tenth of the VM slots, booked beforehand, are spread over the
// evening (10 to 16 hours ahead, so that they leave no holes now);
// best-effort leases of 1 to 8 VMs (more than half of one VM; 1
// core and 1 or 2 GB each; half suspendable, 30 % cancellable, 20 %
// migratable) of 3 to 10 hours arrived over the two hours, about 1.5 times
// the slots, so every host is full and the queue holds reservations hours
// ahead. It returns the scheduler and its clock.
func benchBusy(tb testing.TB, hosts int, seed uint64) (*Scheduler, time.Time) {
	tb.Helper()
	t := slottable.New()
	for i := 0; i < hosts; i++ {
		if _, err := t.AddHost(fmt.Sprintf("host%04d", i), slottable.Resources{400, 8192}); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := New(DefaultConfig(), t, benchEpoch, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x62656e63))
	slots := 4 * hosts
	const window = 2 * time.Hour
	var reqs []Request
	for vms := 0; vms < slots*3/2; {
		r := Request{Arrival: time.Duration(rng.Int64N(int64(window))), Kind: BestEffort, VMs: max(1, rng.IntN(16)-7),
			CPU: 100, Memory: 1024 * (1 + rng.Int64N(2)), Origin: External,
			Duration: time.Duration(180+rng.IntN(420)) * time.Minute}
		switch k := rng.IntN(10); {
		case k < 5:
			r.Class = Suspendable
		case k < 8:
			r.Class = Cancellable
		default:
			r.Class = Migratable
		}
		reqs = append(reqs, r)
		vms += r.VMs
	}
	for vms := 0; vms < slots/10; {
		r := Request{Kind: AdvanceReservation, Start: window + 10*time.Hour + time.Duration(rng.Int64N(int64(6*time.Hour))),
			VMs: 1 + rng.IntN(4), CPU: 100, Memory: 1024, Duration: time.Duration(30+rng.IntN(90)) * time.Minute,
			Class: NonPreemptable, Origin: Local}
		reqs = append(reqs, r)
		vms += r.VMs
	}
	slices.SortStableFunc(reqs, func(a, b Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
	for _, r := range reqs {
		s.Submit(s.At(r.Arrival), r)
	}
	now := s.At(window)
	s.Advance(now)
	return s, now
}

// BenchmarkSubmitBestEffort times one Submit of a best-effort lease (4 VMs
// of 1 core / 2 GB for 2 hours) into a busy cluster under conservative
// backfilling: it is queued and given the earliest reservation that delays
// nobody. Between iterations (not timed) the lease is cancelled, which puts
// the queue back as it was.
func BenchmarkSubmitBestEffort(b *testing.B) {
	for _, hosts := range benchSizes {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			s, now := benchBusy(b, hosts, 1)
			req := Request{Kind: BestEffort, VMs: 4, CPU: 100, Memory: 2048, Duration: 2 * time.Hour,
				Class: Suspendable, Origin: External, Arrival: now.Sub(benchEpoch)}
			var wait time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l, _ := s.Submit(now, req)
				b.StopTimer()
				if l.State != Scheduled && l.State != Running {
					b.Fatalf("lease %d is %s (%s), want scheduled", l.ID, l.State, l.Reason)
				}
				wait += l.PlannedStart().Sub(now)
				if _, err := s.Cancel(now, l.ID); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(wait.Hours()/float64(b.N), "wait-h/op")
			b.ReportMetric(float64(s.QueueLen()), "queued")
		})
	}
}

// BenchmarkSubmitPreemptingAR times one Submit of a local advance
// reservation (8 VMs of 1 core / 2 GB for an hour, starting in 30 minutes)
// into a busy cluster where it fits only by preempting (policy MOV): the
// candidate sets are searched, one is chosen, its suspensions laid out,
// everything reserved, and the best-effort queue planned again around it.
// Each iteration needs a cluster the reservation has
// not much changed: a fresh one is built (not timed) every 8 iterations
// (the reservations of a batch all want the same hour, so each preempts
// leases the previous ones left running).
func BenchmarkSubmitPreemptingAR(b *testing.B) {
	const batch = 8
	for _, hosts := range benchSizes {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			var s *Scheduler
			var now time.Time
			victims, heuristic := 0, 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%batch == 0 {
					b.StopTimer()
					s, now = benchBusy(b, hosts, uint64(i/batch))
					b.StartTimer()
				}
				at := now.Sub(benchEpoch)
				req := Request{Kind: AdvanceReservation, Arrival: at, Start: at + 30*time.Minute,
					VMs: 8, CPU: 100, Memory: 2048, Duration: time.Hour, Class: NonPreemptable, Origin: Local}
				preemptions, heur := s.Stats().Preemptions, s.Stats().Search["heuristic"]
				l, _ := s.Submit(now, req)
				b.StopTimer()
				if l.State != Scheduled {
					b.Fatalf("lease %d is %s (%s: %s), want scheduled", l.ID, l.State, l.Reason, l.Detail)
				}
				if s.Stats().Preemptions == preemptions {
					b.Fatalf("lease %d fitted without preempting: the cluster is not busy enough", l.ID)
				}
				heuristic += s.Stats().Search["heuristic"] - heur
				detail := l.History[len(l.History)-1].Detail // "preempted leases [3 17] (MOV, exact search)"
				if lo, hi := strings.IndexByte(detail, '['), strings.IndexByte(detail, ']'); lo >= 0 && hi > lo {
					victims += len(strings.Fields(detail[lo+1 : hi]))
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(victims)/float64(b.N), "victims/op")
			b.ReportMetric(float64(heuristic)/float64(b.N), "heuristic/op")
		})
	}
}
