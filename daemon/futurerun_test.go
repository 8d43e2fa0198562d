package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// TestFuturePartialRunEnacted: a future partial run (docs/models.md §3) is
// started, suspended and resumed by the daemon's usual operations. Two
// hosts, aggressive backfilling, F = 1; advance reservations for both
// hosts over [3000, 4000) and [8000, 9000) s; X (1 VM, 2000 s) holds h0.
// BIG (2 VMs, 10000 s) cannot start now: it reserves [2000, 2675.6774)
// and its suspension (2 * 161.0063 + 2 * 0.005 + 2.3 = 324.3226 s) before
// the first reservation, so Y (1 VM, 2200 s, not suspendable), which
// would hold h1 across 2000, waits; it takes the queue's reservation
// while BIG's plan is under way and runs from 4000, after the first
// reservation, and BIG resumes after it (at 6200) and again after the
// second reservation. Without future partial runs BIG would
// reserve [9000, 19000), Y would run [0, 2200) and BIG would first run at
// 2200, in the gap left then.
func TestFuturePartialRunEnacted(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Scheduler.Backfilling = scheduler.BackfillAggressive
	c.Scheduler.ThresholdFactor = 1
	d := start(t, c)
	ctx := context.Background()
	at := func(s int) string { return simStart.Add(time.Duration(s) * time.Second).Format(time.RFC3339) }
	for _, s := range []int{3000, 8000} {
		ar, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 2, Duration: "1000s", Start: at(s), Class: "non-preemptable"})
		if err != nil || ar.State != "scheduled" {
			t.Fatalf("advance reservation at %d: %v %+v", s, err, ar)
		}
	}
	var ids []uint64
	for _, r := range []api.LeaseRequest{
		{Name: "X", VMs: 1, Duration: "2000s", Origin: "external"},
		{Name: "BIG", VMs: 2, Duration: "10000s", Origin: "external"},
		{Name: "Y", VMs: 1, Duration: "2200s", Origin: "external", Class: "cancellable"},
	} {
		l, err := d.CreateLease(ctx, admin, r)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	big := waitFor(t, d, ids[1], "done", func(l api.Lease) bool { return l.State == "done" })
	if big.Start == nil || !big.Start.Equal(simStart.Add(2000*time.Second)) {
		t.Fatalf("BIG first started at %v, want %v", big.Start, simStart.Add(2000*time.Second))
	}
	// Run, suspended before each reservation, resumed after it.
	got := states(big)
	if strings.Count(got, "suspending,suspended") != 2 || strings.Count(got, "resuming,running") != 2 || !strings.HasSuffix(got, "running,done") {
		t.Fatalf("BIG went %s, want two suspensions and two resumptions", got)
	}
	if big.Preemptions != 0 {
		t.Fatalf("BIG: %d preemptions, want none (its suspensions were planned)", big.Preemptions)
	}
	y := waitFor(t, d, ids[2], "done", func(l api.Lease) bool { return l.State == "done" })
	if y.Start == nil || !y.Start.Equal(simStart.Add(4000*time.Second)) {
		t.Fatalf("Y started at %v, want %v", y.Start, simStart.Add(4000*time.Second))
	}
	checkScheduler(t, d)
}
