package scheduler

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
)

// TestDeadlineKeepMatchesRestore drives two schedulers through the same
// random workloads (deadlineKeepWorkload: migratable deadline leases with
// slack, which immediate local leases preempt back into the queue, among
// best-effort ones; and lazyWorkload's mix of every kind), one keeping
// the plans of queued deadline-bound leases in place (keepDeadlinePlan)
// and one taking, searching and restoring them, and requires the same
// actions after every call and the same leases, plans, generations,
// reservation IDs and slot table throughout, under the preempting
// policies, both backfilling modes and both kinds of suspend exclusion.
// The plans kept must be many: else the comparison proves nothing.
func TestDeadlineKeepMatchesRestore(t *testing.T) {
	policies := []preempt.Policy{preempt.MOV, preempt.MLIP, preempt.MOML}
	kept := 0
	for seed := int64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			cfg := DefaultConfig()
			cfg.CheckInvariants = true
			cfg.Policy = policies[rng.Intn(len(policies))]
			if rng.Intn(2) == 0 {
				cfg.Backfilling = BackfillAggressive
			}
			if rng.Intn(3) == 0 {
				cfg.Exclusion = ExclusionGlobal
			}
			if rng.Intn(5) == 0 {
				cfg.WakeUp = 10 * time.Minute
			}
			hosts, cores := 2+rng.Intn(5), int64(1+rng.Intn(2))
			keep, ref := randomCluster(t, cfg, hosts, cores), randomCluster(t, cfg, hosts, cores)
			ref.noDeadlineKeep = true
			reqs := deadlineKeepWorkload(rng, hosts*int(cores))
			if seed%4 == 0 {
				reqs = lazyWorkload(rng, hosts*int(cores))
			}
			lockstep(keep, ref, reqs, rng, matchState(t, keep, ref, "kept", "restored"))
			if err := keep.Check(); err != nil {
				t.Fatal(err)
			}
			kept += keep.deadlineKept
		})
	}
	if kept < 50 {
		t.Fatalf("keepDeadlinePlan kept %d plans over the workloads: the comparison does not reach it", kept)
	}
	t.Logf("%d plans kept", kept)
}

// deadlineKeepWorkload draws 40-100 requests on lazyWorkload's grid for a
// cluster of slots VM slots: a third migratable deadline leases with one
// to four times their length as slack, a third immediate local leases
// (which preempt them), a third best-effort, half of all ending early.
func deadlineKeepWorkload(rng *rand.Rand, slots int) []Request {
	const unit = 5 * time.Minute
	var reqs []Request
	arrival := time.Duration(0)
	for i, n := 0, 40+rng.Intn(61); i < n; i++ {
		r := gridRequest(rng, i, &arrival, 8, slots)
		d := r.Duration
		if rng.Intn(2) == 0 {
			r.Real = d / 2
		}
		switch rng.Intn(3) {
		case 0:
			r.Kind, r.Class = Deadline, Migratable
			r.Start = arrival + time.Duration(rng.Intn(3))*unit
			r.Deadline = r.Start + d*time.Duration(2+rng.Intn(4))
		case 1:
			r.Kind, r.Class, r.Origin = Immediate, NonPreemptable, Local
		default:
			r.Kind, r.Class = BestEffort, []Class{Cancellable, Suspendable}[rng.Intn(2)]
		}
		reqs = append(reqs, r)
	}
	return reqs
}
