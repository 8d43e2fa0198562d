package scheduler

import (
	"time"

	"github.com/bora-sched/bora/overhead"
)

// Overheads holds the parameters of the overhead model (docs/models.md
// §2), with its formulas: package overhead, which the fake driver shares.
type Overheads = overhead.Params

// DefaultOverheads are the reference values of docs/models.md §2
// (overhead.DefaultParams).
func DefaultOverheads() Overheads { return overhead.DefaultParams() }

// PreemptionCost is h(L) for a lease whose VMs have the given memory
// sizes, preempted with operation op.
func PreemptionCost(o Overheads, op Operation, mems []int64) time.Duration {
	switch op {
	case OpCancel, OpRequeue:
		return o.Cancel(len(mems))
	case OpSuspend:
		return o.SuspendResume(mems)
	case OpMigrate:
		return o.Migrate(mems)
	}
	return 0
}

func memories(vms int, mem int64) []int64 {
	m := make([]int64, vms)
	for i := range m {
		m[i] = mem
	}
	return m
}
