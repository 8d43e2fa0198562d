package scheduler

import "time"

// Refuse records a request that a stage before the scheduler turned down
// (the admission stage, ReasonAdmissionLimit) as a lease rejected at now
// with reason r and detail, without planning it: the lease gets an ID
// and a history like any other rejected one, so that `bora lease show`
// and the reports say why. Nothing else changes.
func (s *Scheduler) Refuse(now time.Time, req Request, r Reason, detail string) *Lease {
	s.setNow(now)
	l := &Lease{ID: s.nextID, Req: req, Submitted: now, Ready: now, Ops: map[Operation]int{}}
	s.nextID++
	s.leases.set(l)
	s.ids = append(s.ids, l.ID)
	l.setState(now, Pending, "", "")
	s.reject(l, now, r, detail)
	return l
}
