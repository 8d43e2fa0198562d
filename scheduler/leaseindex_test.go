package scheduler

import (
	"slices"
	"testing"
)

// TestLeaseIndexListsDeadlines: the list of deadline leases follows
// adding, replacing (by a lease of another kind too), forgetting, and
// leases reaching a terminal state; a clone's list is its own.
func TestLeaseIndexListsDeadlines(t *testing.T) {
	var x leaseIndex
	want := func(ids ...LeaseID) {
		t.Helper()
		if got := x.liveDeadlines(); !slices.Equal(got, ids) {
			t.Fatalf("liveDeadlines = %v, want %v", got, ids)
		}
	}
	x.set(&Lease{ID: 1, Req: Request{Kind: Deadline}})
	x.set(&Lease{ID: 2, Req: Request{Kind: BestEffort}})
	x.set(&Lease{ID: 3, Req: Request{Kind: Deadline}})
	x.set(&Lease{ID: 4, Req: Request{Kind: Deadline}})
	want(1, 3, 4)
	x.set(&Lease{ID: 1, Req: Request{Kind: Deadline}}) // the same lease again
	want(1, 3, 4)
	x.set(&Lease{ID: 3, Req: Request{Kind: Immediate}})
	want(1, 4)
	x.del(2)
	x.del(7) // none there
	x.del(1)
	want(4)
	x.set(&Lease{ID: 1, Req: Request{Kind: Deadline}})
	want(4, 1)
	c := x.clone()
	x.get(4).State = Done
	want(1)
	if got := c.liveDeadlines(); !slices.Equal(got, []LeaseID{4, 1}) {
		t.Fatalf("the clone's liveDeadlines = %v, want [4 1]", got)
	}
}
