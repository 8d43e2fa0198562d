package scheduler

import (
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Restarting a preempted deadline lease on a host that is off
// (docs/models.md §5). A migratable deadline lease that is preempted must
// still be able to end by its deadline (deadline.go). Under energy
// management the place where it can do so may be a host that is off: it
// counts as such a place when it can be switched on in time. A host off
// (or shutting down) with no boot planned, in service (not taken out of
// service when it was switched off, not being emptied), can be on from
// max(now, the end of its shutdown) + the boot time; the restart is
// planned there like any restart (its migration, resumption, run and
// shutdown from the overhead model), only from then on.
//
// The hosts off are looked at last: only when no restart on the hosts on
// (or being switched on) ends by the deadline, even with the queued
// leases that may give way out of the way. When a restart is held or
// planned on such a host, the scheduler plans its boot to end when the
// restart begins (PowerOn) and reports it (TakeBoots), so that the
// energy controller tells its hooks (the simulator's meter, the
// daemon's power driver) as of a host it switched on itself.

// Boot is a boot the scheduler planned by itself: host Host boots over
// [Boot, On) so that a preempted deadline lease restarts there by its
// deadline.
type Boot struct {
	Host     slottable.HostID
	Boot, On time.Time
}

// TakeBoots returns the boots the scheduler planned by itself since the
// last call, in the order it planned them, and forgets them. Without
// hosts off it returns none.
func (s *Scheduler) TakeBoots() []Boot {
	out := s.power.planned
	s.power.planned = nil
	return out
}

// bootable returns the hosts that are off (or shutting down) with no boot
// planned and in service, each with the earliest time it can be on if
// switched on at now.
func (s *Scheduler) bootable(now time.Time) map[slottable.HostID]time.Time {
	var out map[slottable.HostID]time.Time
	for h, p := range s.power.hosts {
		if !p.boot.IsZero() || p.disabled {
			continue
		}
		if _, ok := s.power.evac[h]; ok {
			continue
		}
		if out == nil {
			out = map[slottable.HostID]time.Time{}
		}
		from := now
		if p.off.After(from) {
			from = p.off
		}
		out[h] = from.Add(s.power.boot)
	}
	return out
}

// openHost makes host h, off, take placements from on in s.table alone
// (a copy: nothing of the power bookkeeping changes): its power
// reservation ends at on, the host is open.
func (s *Scheduler) openHost(h slottable.HostID, on time.Time) {
	p := s.power.hosts[h]
	if r, ok := s.table.Get(p.res); ok && p.res != 0 && r.End.After(on) {
		if on.After(r.Start) {
			_ = s.table.SetEnd(p.res, on)
		} else {
			_ = s.table.Remove(p.res)
		}
	}
	_ = s.table.SetClosed(h, false)
}

// findWithBoots is findExclusive (l from from, starting by until, lasting
// d, steps sp) with the hosts off that can be switched on in time
// (bootable) counted from when they can be on. It returns the placement
// and the hosts of it that are off, ascending; nothing changes.
func (s *Scheduler) findWithBoots(l *Lease, from, until time.Time, d time.Duration, sp []stepSpec, now time.Time) (placement, []slottable.HostID, bool) {
	off := s.bootable(now)
	if len(off) == 0 {
		return placement{}, nil, false
	}
	defer s.onCopy()()
	for h, on := range off {
		s.openHost(h, on)
	}
	p, ok := s.findExclusive(l, from, until, d, sp)
	if !ok {
		return placement{}, nil, false
	}
	var boots []slottable.HostID
	for _, h := range p.hosts {
		if _, ok := off[h]; ok {
			boots = append(boots, h)
		}
	}
	slices.Sort(boots)
	return p, slices.Compact(boots), true
}

// bootFor switches hosts on, off until now, to be on at at, and records
// the boots for TakeBoots. It reports false if one could not be (a bug:
// findWithBoots chose it).
func (s *Scheduler) bootFor(hosts []slottable.HostID, at, now time.Time) bool {
	for _, h := range hosts {
		on, err := s.PowerOn(now, h, at)
		if err != nil || on.After(at) {
			return false
		}
		s.power.planned = append(s.power.planned, Boot{Host: h, Boot: on.Add(-s.power.boot), On: on})
	}
	return true
}
