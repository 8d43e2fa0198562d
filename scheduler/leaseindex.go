package scheduler

import "github.com/bora-sched/bora/internal/idmap"

// leaseIndex holds the scheduler's leases by ID, in a slice indexed by ID
// (idmap): the scheduler looks leases up by ID millions of times in a
// contended run, every pass over the queue.
type leaseIndex struct{ idmap.Map[*Lease] }

// get returns lease id, or nil when there is none.
func (x *leaseIndex) get(id LeaseID) *Lease {
	l, _ := x.Get(id)
	return l
}

// set adds l under its ID, or replaces the lease there.
func (x *leaseIndex) set(l *Lease) { x.Set(l.ID, l) }

// del forgets lease id.
func (x *leaseIndex) del(id LeaseID) { x.Delete(id) }
