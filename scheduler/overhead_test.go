package scheduler

import (
	"testing"
	"time"
)

func TestPreemptionCostByOperation(t *testing.T) {
	o := DefaultOverheads()
	o.Stop = 2 * time.Second
	mems := []int64{1024, 1024}
	cases := []struct {
		op   Operation
		want time.Duration
	}{
		{OpCancel, 4 * time.Second},  // 2 VMs * 2 s
		{OpRequeue, 4 * time.Second}, // stopped the same way
		{OpSuspend, o.SuspendResume(mems)},
		{OpMigrate, o.Migrate(mems)},
		{OpUnreserve, 0}, // not begun: nothing to undo
	}
	for _, c := range cases {
		if got := PreemptionCost(o, c.op, mems); got != c.want {
			t.Errorf("%s: got %v, want %v", c.op, got, c.want)
		}
	}
}
