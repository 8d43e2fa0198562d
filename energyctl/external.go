package energyctl

import (
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// externalRoom is how many of the n hosts external lease l needs it
// could have already, from when a host switched on now would be on, on
// the hosts on or booting (energy.Input.Room): the VMs of l that fit over
// its interval there, in hosts of hostsFor's VMs each, capped at n. The
// reservations of the external leases still waiting are left out: the
// queue is planned again behind l, its head. An external lease never
// preempts, so nothing else is left out. Off hosts hold their whole
// capacity in the slot table and count for nothing.
func (c *Controller) externalRoom(now time.Time, l *scheduler.Lease, n int, waiting []*scheduler.Lease) int {
	s := c.s
	if n <= 0 {
		return 0
	}
	boot, _ := s.PowerTimes()
	o := s.Config().Overheads
	start := now.Add(boot)
	end := start.Add(l.Req.Duration + o.Enactment + o.Shutdown)
	per := slottable.Resources{l.Req.CPU, l.Req.Memory}
	for len(per) < s.Table().Dims() {
		per = append(per, 0)
	}
	if c.waitingSet == nil || !sameLeases(c.waitingIDs, waiting) {
		// Made again only when the waiting leases changed since the last
		// tick (a few hundred leases, the same at most ticks).
		if c.waitingSet == nil {
			c.waitingSet = map[uint64]bool{}
		}
		clear(c.waitingSet)
		c.waitingIDs = c.waitingIDs[:0]
		for _, w := range waiting {
			c.waitingSet[uint64(w.ID)] = true
			c.waitingIDs = append(c.waitingIDs, uint64(w.ID))
		}
	}
	ignore := func(r slottable.Reservation) bool { return c.waitingSet[r.Lease] }
	vms := 0
	for h := 0; h < s.Table().NumHosts() && vms < l.Req.VMs; h++ {
		if s.Evacuating(slottable.HostID(h)) {
			continue
		}
		vms += s.Table().FitCount(slottable.HostID(h), start, end, per, ignore)
	}
	perHost := max(1, l.Req.VMs/n)
	return min(n, min(vms, l.Req.VMs)/perHost)
}

// sameLeases reports whether ids are the IDs of leases, in order.
func sameLeases(ids []uint64, leases []*scheduler.Lease) bool {
	if len(ids) != len(leases) {
		return false
	}
	for i, l := range leases {
		if ids[i] != uint64(l.ID) {
			return false
		}
	}
	return true
}
