package sim

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// idleTime splits the time hosts were on with nothing running on them
// (no interval of the Gantt chart: VMs, suspensions, resumptions,
// migrations), up to end, by what ended it:
//
//   - AfterBoot: from a host coming on to the first thing it ran (a host
//     switched on for a lease that does not start on it at once);
//   - Between: between two things a host ran while it stayed on, of which
//     BetweenLong in gaps longer than the grace period and a tick, which
//     the idle rule would have switched off: the host was kept on by a
//     reservation ahead (a lease planned on it later), or by the local
//     need, or by a tick that switched hosts on; and of these BetweenHeldH
//     in gaps whose next lease was submitted before the gap began: it
//     was waiting, planned on the host (scheduler.PowerOff refuses a host
//     with reservations ahead), BetweenHeldLocalH when that lease was
//     local (an advance reservation submitted with notice);
//   - BeforeOff: from the last thing it ran to its shutdown (the grace
//     period and the tick), or to end.
//
// Hours of host time, for the report's energy section.
func (p *powerCtl) idleTime(end time.Time) report.IdleHours {
	type span struct {
		start, end time.Time
		lease      scheduler.LeaseID
	}
	busy := map[slottable.HostID][]span{}
	for iv := range p.e.gantt.all() {
		if iv.End.After(iv.Start) {
			busy[iv.Host] = append(busy[iv.Host], span{iv.Start, iv.End, iv.Lease})
		}
	}
	on := map[slottable.HostID][]span{}
	from := map[slottable.HostID]time.Time{}
	if !p.managed {
		for h := 0; h < p.e.cfg.Cluster.Hosts; h++ {
			from[slottable.HostID(h)] = Epoch
		}
	}
	changes := append([]powerChange(nil), p.changes...)
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at.Before(changes[j].at) })
	for _, c := range changes {
		switch c.state {
		case scheduler.PowerOn:
			from[c.host] = c.at
		case scheduler.PowerShuttingDown:
			if t, ok := from[c.host]; ok {
				on[c.host] = append(on[c.host], span{start: t, end: c.at})
				delete(from, c.host)
			}
		}
	}
	for h, t := range from {
		on[h] = append(on[h], span{start: t, end: end})
	}
	tick := p.cfg.Tick
	if tick <= 0 {
		tick = DefaultTick
	}
	long := p.cfg.Params.Grace + tick
	var idle report.IdleHours
	for _, h := range slices.Sorted(maps.Keys(on)) { // in host order: the sums come out the same every run
		ons := on[h]
		b := busy[h]
		sort.Slice(b, func(i, j int) bool { return b[i].start.Before(b[j].start) })
		for _, o := range ons {
			if o.end.After(end) {
				o.end = end
			}
			t, first := o.start, true
			for _, s := range b {
				if !s.end.After(t) || !s.start.Before(o.end) {
					continue
				}
				if gap := s.start.Sub(t).Hours(); gap > 0 {
					if first {
						idle.AfterBootH += gap
					} else {
						idle.BetweenH += gap
						if s.start.Sub(t) > long {
							idle.BetweenLongH += gap
							if l := p.e.s.Lease(s.lease); l != nil && l.Submitted.Before(t) {
								idle.BetweenHeldH += gap
								if l.Req.Origin == scheduler.Local {
									idle.BetweenHeldLocalH += gap
								}
							}
						}
					}
				}
				first = false
				if s.end.After(t) {
					t = s.end
				}
			}
			if o.end.After(t) {
				idle.BeforeOffH += o.end.Sub(t).Hours()
			}
		}
	}
	return idle
}
