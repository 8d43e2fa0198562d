package scheduler

import (
	"slices"

	"github.com/bora-sched/bora/internal/idmap"
)

// leaseIndex holds the scheduler's leases by ID, in a slice indexed by ID
// (idmap): the scheduler looks leases up by ID millions of times in a
// contended run, every pass over the queue.
type leaseIndex struct {
	idmap.Map[*Lease]
	// deadlines lists the deadline leases held, in the order added, but
	// those liveDeadlines found over: the leases a search for movable
	// deadline leases (deadlinemove.go) looks at, instead of every
	// reservation in its interval on every host.
	deadlines []LeaseID
}

// get returns lease id, or nil when there is none.
func (x *leaseIndex) get(id LeaseID) *Lease {
	l, _ := x.Get(id)
	return l
}

// set adds l under its ID, or replaces the lease there.
func (x *leaseIndex) set(l *Lease) {
	old := x.get(l.ID)
	x.Set(l.ID, l)
	if l.Req.Kind == Deadline && (old == nil || old.Req.Kind != Deadline) {
		x.deadlines = append(x.deadlines, l.ID)
	}
}

// del forgets lease id.
func (x *leaseIndex) del(id LeaseID) {
	if l := x.get(id); l != nil && l.Req.Kind == Deadline {
		x.deadlines = slices.DeleteFunc(x.deadlines, func(d LeaseID) bool { return d == id })
	}
	x.Delete(id)
}

// liveDeadlines returns the deadline leases held that are not over,
// having dropped from the list those that are (a lease over stays over)
// or were replaced by a lease of another kind.
func (x *leaseIndex) liveDeadlines() []LeaseID {
	x.deadlines = slices.DeleteFunc(x.deadlines, func(id LeaseID) bool {
		l := x.get(id)
		return l == nil || l.Req.Kind != Deadline || l.State.Terminal()
	})
	return x.deadlines
}

// clone is a copy holding clones of x's leases.
func (x *leaseIndex) clone() leaseIndex {
	return leaseIndex{Map: x.Clone((*Lease).clone), deadlines: slices.Clone(x.deadlines)}
}
