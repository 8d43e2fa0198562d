package scheduler

// leaseIndex holds the scheduler's leases by ID. IDs are handed out in
// order from 1 (and kept by a snapshot), so a slice indexed by ID finds
// one without hashing: the scheduler looks leases up by ID millions of
// times in a contended run (every pass over the queue), and the map it
// replaced took 3 % of a ch.3 sweep's CPU. A forgotten lease leaves a nil
// entry: 8 bytes per lease ever admitted. An ID far past the others (a
// snapshot from elsewhere) goes in a map instead, so that it cannot make
// the slice huge.
type leaseIndex struct {
	byID []*Lease
	far  map[LeaseID]*Lease
}

// denseSlack is how far past the slice's end an ID may be and still
// grow it.
const denseSlack = 4096

// get returns lease id, or nil when there is none.
func (x *leaseIndex) get(id LeaseID) *Lease {
	if id < uint64(len(x.byID)) {
		return x.byID[id]
	}
	return x.far[id] // nil map: nil
}

// set adds l under its ID, or replaces the lease there.
func (x *leaseIndex) set(l *Lease) {
	n := uint64(len(x.byID))
	switch {
	case l.ID < n:
	case l.ID-n < denseSlack+n:
		x.byID = append(x.byID, make([]*Lease, l.ID+1-n)...)
		for id := n; id <= l.ID; id++ { // those held far until now
			if f, ok := x.far[id]; ok {
				x.byID[id] = f
				delete(x.far, id)
			}
		}
	default:
		if x.far == nil {
			x.far = map[LeaseID]*Lease{}
		}
		x.far[l.ID] = l
		return
	}
	x.byID[l.ID] = l
}

// del forgets lease id.
func (x *leaseIndex) del(id LeaseID) {
	if id < uint64(len(x.byID)) {
		x.byID[id] = nil
		return
	}
	delete(x.far, id)
}

// clone is a copy holding clone(l) for each lease l.
func (x *leaseIndex) clone(clone func(*Lease) *Lease) leaseIndex {
	c := leaseIndex{byID: make([]*Lease, len(x.byID))}
	for id, l := range x.byID {
		if l != nil {
			c.byID[id] = clone(l)
		}
	}
	for id, l := range x.far {
		if c.far == nil {
			c.far = map[LeaseID]*Lease{}
		}
		c.far[id] = clone(l)
	}
	return c
}
