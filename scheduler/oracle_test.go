package scheduler

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// busyCluster builds a scheduler whose hosts (random cpu and memory) run
// random external best-effort leases started at time 0.
func busyCluster(t testing.TB, rng *rand.Rand, hosts, leases int) *Scheduler {
	t.Helper()
	table := slottable.New()
	for h := 0; h < hosts; h++ {
		if _, err := table.AddHost(fmt.Sprintf("h%d", h), slottable.Resources{int64(100 * (1 + rng.Intn(4))), int64(1024 * (1 + rng.Intn(4)))}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.Backfilling = "none"
	cfg.CheckInvariants = true
	s, err := New(cfg, table, epoch, nil)
	if err != nil {
		t.Fatal(err)
	}
	classes := []Class{Cancellable, Suspendable, Migratable}
	for i := 0; i < leases; i++ {
		req := Request{Kind: BestEffort, Duration: time.Duration(1+rng.Intn(10)) * time.Hour,
			VMs: 1 + rng.Intn(3), CPU: 100, Memory: int64(512 * (1 + rng.Intn(2))),
			Class: classes[rng.Intn(len(classes))], Origin: External}
		s.Submit(epoch, req)
	}
	return s
}

// TestOracleMatchesSlotTable checks the preemption feasibility oracle
// against the slot table itself over every subset of candidates: a set is
// feasible exactly when, with the set's reservations removed from a copy of
// the table, the request fits at its start; and so again when the subsets
// are asked about a second time in a random order. The first clusters are
// small (most hosts held by several candidates), the others larger (many
// held by one alone, whose gains the oracle adds up once per candidate).
func TestOracleMatchesSlotTable(t *testing.T) {
	seen := map[bool]int{}
	held := map[bool]int{} // hosts held by one candidate (true), by several
	for seed := int64(1); seed <= 80; seed++ {
		rng := rand.New(rand.NewSource(seed))
		hosts := 2 + rng.Intn(5)
		if seed > 40 {
			hosts = 6 + rng.Intn(11)
		}
		s := busyCluster(t, rng, hosts, 3+rng.Intn(10))
		at := epoch.Add(time.Duration(rng.Intn(120)) * time.Minute)
		d := time.Duration(1+rng.Intn(4)) * time.Hour
		l := &Lease{ID: 1 << 20, Req: Request{VMs: 1 + rng.Intn(4), CPU: 100, Memory: 1024, Origin: Local}}
		cands := s.candidates(l, at, at.Add(d))
		if len(cands) > 12 {
			cands = cands[:12]
		}
		if seed > 40 { // up to what fits with every candidate gone: the answer is often near the line
			gone := map[LeaseID]bool{}
			for _, v := range cands {
				gone[v.l.ID] = true
			}
			most := 0
			for h := range hosts {
				most += s.table.FitCount(slottable.HostID(h), at, at.Add(d), l.Per(), func(r slottable.Reservation) bool { return gone[r.Lease] })
			}
			l.Req.VMs = 1 + rng.Intn(most+1)
		}
		holders := map[slottable.HostID]map[int]bool{}
		for i, v := range cands {
			for _, h := range v.over {
				if holders[h] == nil {
					holders[h] = map[int]bool{}
				}
				holders[h][i] = true
			}
		}
		for _, by := range holders {
			held[len(by) == 1]++
		}
		feasible := s.oracle(l, at, d, cands)
		wants := make([]bool, 1<<len(cands))
		for mask := 0; mask < 1<<len(cands); mask++ {
			set := preempt.NewSet(len(cands))
			clone := s.table.Clone()
			for i, v := range cands {
				if mask&(1<<i) == 0 {
					continue
				}
				set.Add(i)
				for _, r := range clone.ForLease(v.l.ID) {
					if err := clone.Remove(r.ID); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, want := clone.EarliestFit(slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: d, From: at, Until: at})
			seen[want]++
			wants[mask] = want
			if got := feasible(set); got != want {
				t.Fatalf("seed %d, set %v of %d candidates: oracle says %v, the slot table %v", seed, set, len(cands), got, want)
			}
		}
		// Asked again in another order (the oracle keeps each host's
		// count for the members last asked about it).
		for _, mask := range rng.Perm(len(wants)) {
			set := preempt.NewSet(len(cands))
			for i := range cands {
				if mask&(1<<i) != 0 {
					set.Add(i)
				}
			}
			if got := feasible(set); got != wants[mask] {
				t.Fatalf("seed %d, set %v of %d candidates asked again: oracle says %v, the slot table %v", seed, set, len(cands), got, wants[mask])
			}
		}
	}
	t.Logf("subsets checked: %d feasible, %d not; hosts held by one candidate %d, by several %d", seen[true], seen[false], held[true], held[false])
	if seen[true] < 50 || seen[false] < 50 || held[true] < 50 || held[false] < 50 {
		t.Errorf("the random clusters exercise too little: feasible %v, held by one %v", seen, held)
	}
}

// TestCandidatesArePreemptable: only running external preemptable leases
// are ever candidates, and local leases never.
func TestCandidatesArePreemptable(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	s := busyCluster(t, rng, 4, 8)
	local := Request{Kind: AdvanceReservation, Start: 0, Duration: 10 * time.Hour, VMs: 1, CPU: 100, Memory: 512,
		Class: NonPreemptable, Origin: Local}
	l, _ := s.Submit(epoch, local)
	for _, v := range s.candidates(l, epoch, epoch.Add(10*time.Hour)) {
		if v.l.Req.Origin != External || v.l.Req.Class == NonPreemptable || v.l.State != Running {
			t.Errorf("candidate lease %d: %s %s %s", v.l.ID, v.l.Req.Origin, v.l.Req.Class, v.l.State)
		}
	}
}
