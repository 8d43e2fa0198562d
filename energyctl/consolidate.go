package energyctl

import (
	"maps"
	"slices"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// consolidate empties up to k switched-on hosts, fewest leases first
// (energy.FewestLeases), among those holding leases, all of which can be
// moved (scheduler.Movable), other than those in keep, and switches off
// those already empty. Idle
// hosts are not taken: the grace period decides when they go off (taking
// them would switch off at the next tick a host just switched on for a
// request that could not start yet, over and over). A move needs a
// destination: a host is taken
// only if the leases running on it fit, from now to the end of their
// runs plus a suspension and a resumption, in the room left on the other
// switched-on hosts that hold leases (room promised to an earlier pick
// counts as taken);
// otherwise the next one is tried. A queued lease planned there but not
// begun must likewise find room, up to its planned end, so that it is not
// planned later. Emptying a host whose leases would only wait in the queue
// would trade energy for violations.
func (c *Controller) consolidate(now time.Time, k int, idleOff []string, keep map[slottable.HostID]bool) []scheduler.Action {
	s := c.s
	skip := map[string]bool{}
	for _, n := range idleOff {
		skip[n] = true
	}
	var cands []energy.HostLeases
	held := map[slottable.HostID][]scheduler.LeaseID{} // the candidates' leases
	for _, host := range s.Table().Hosts() {
		id, name := host.ID, host.Name
		if skip[name] || keep[id] || s.Evacuating(id) || !s.HostEnabled(id) || !c.mayOff(id) {
			continue
		}
		if ids := s.LeasesOn(id, now); len(ids) > 0 && s.Movable(id, now, ids) {
			cands = append(cands, energy.HostLeases{Host: name, Leases: len(ids)})
			held[id] = ids
		}
	}
	if len(cands) == 0 {
		return nil
	}
	room := c.roomMap(now)
	order := slices.Sorted(maps.Keys(room)) // in host order: a run is reproducible
	var chosen []slottable.HostID
	for _, name := range energy.FewestLeases(cands, len(cands)) {
		if len(chosen) == k {
			break
		}
		h, ok := c.hostID(name)
		if !ok {
			continue
		}
		if c.fitsElsewhere(now, h, held[h], room, order) {
			chosen = append(chosen, h)
			delete(room, h)
		}
	}
	if len(chosen) == 0 {
		return nil
	}
	acts, _ := s.EvacuateHosts(now, chosen)
	for _, h := range chosen {
		if s.Evacuating(h) {
			c.evac = append(c.evac, h)
			c.stats.Consolidated++
		}
	}
	c.finishEvacuations(now)
	return acts
}

// room is what a switched-on host can still take from now: resources
// free over [now, until), until being when its next reservation begins.
type room struct {
	free  slottable.Resources
	until time.Time
}

// roomMap returns the room on every switched-on host in service that is
// not being emptied and holds a lease: moving leases to an idle host would
// keep as many hosts on (and keep on one that would go off).
func (c *Controller) roomMap(now time.Time) map[slottable.HostID]*room {
	s := c.s
	out := map[slottable.HostID]*room{}
	for h := 0; h < c.s.Table().NumHosts(); h++ {
		id := slottable.HostID(h)
		if s.Evacuating(id) || !s.HostEnabled(id) || s.PowerState(id, now) != scheduler.PowerOn {
			continue
		}
		until := scheduler.PowerForever
		busy := false
		for _, r := range s.Table().ReservationsOn(id, now, scheduler.PowerForever) {
			busy = busy || r.Lease != 0
			if r.Start.After(now) && r.Start.Before(until) {
				until = r.Start
			}
		}
		if !busy {
			continue
		}
		if free := s.Table().Available(id, now, until); fits(free, slottable.Resources{1, 1}) {
			out[id] = &room{free: free, until: until}
		}
	}
	return out
}

// fitsElsewhere reports whether leases, those on h (LeasesOn), fit in the
// room of the other hosts, tried in order (the rooms' hosts, sorted; those
// no longer in rooms passed over), and if so takes that room.
func (c *Controller) fitsElsewhere(now time.Time, h slottable.HostID, leases []scheduler.LeaseID, rooms map[slottable.HostID]*room, order []slottable.HostID) bool {
	s := c.s
	o := s.Config().Overheads
	taken := map[slottable.HostID]slottable.Resources{}
	for _, id := range leases {
		l := s.Lease(id)
		plan := l.Plan()
		if len(plan) == 0 {
			continue
		}
		end := plan[len(plan)-1].End // not begun: planned again, by then
		if cur, ok := l.Current(); ok {
			if cur.Kind != "vm" {
				continue // leaving by itself
			}
			end = cur.End.Add(o.Suspend(memories(l)) + o.Resume(memories(l)))
		}
		per := l.Per()
		need := l.Req.VMs
		for _, other := range order {
			r, ok := rooms[other]
			if !ok || other == h || r.until.Before(end) {
				continue
			}
			for need > 0 && fits(sub(r.free, taken[other]), per) {
				taken[other] = add(taken[other], per)
				need--
			}
			if need == 0 {
				break
			}
		}
		if need > 0 {
			return false
		}
	}
	for other, t := range taken {
		rooms[other].free = sub(rooms[other].free, t)
	}
	return true
}

func fits(free, per slottable.Resources) bool {
	for j, x := range per {
		if j < len(free) && x > free[j] {
			return false
		}
	}
	return true
}

func sub(a, b slottable.Resources) slottable.Resources {
	out := append(slottable.Resources(nil), a...)
	for j := range b {
		out[j] -= b[j]
	}
	return out
}

func add(a, b slottable.Resources) slottable.Resources {
	out := make(slottable.Resources, len(b))
	copy(out, a)
	for j := range b {
		out[j] += b[j]
	}
	return out
}
