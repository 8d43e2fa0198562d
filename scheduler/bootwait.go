package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
)

// An immediate lease starts now; but under energy management the hosts
// it needs may be off, switched on for it by the energy controller just
// before it is submitted (energyctl's BeforeSubmit), and on only once
// their boot is over. Such a lease may wait for them, up to the
// tolerance Config.ImmediateBootWait (docs/models.md §5): when it does
// not fit now without preempting, it starts at the end of a planned boot
// within the tolerance, taking the hosts switched on there and, if they
// are not enough, what preemption frees then (the energy policy's split
// between switching on and preempting). Only when that fails is it
// placed now by preemption alone, as without energy management. A lease
// that would fit only at the end of a boot beyond the tolerance is
// rejected with ReasonBootWaitTooLong.
//
// With no boot planned (every host on: no energy management) the path
// is the one of any fixed lease: preemption at now, or rejection.

// maxBootWaitStarts bounds how many boot ends an immediate lease tries.
const maxBootWaitStarts = 16

// placeImmediate decides immediate lease l, which does not fit at now
// without preempting (placeFixed tried), lasting total with steps sp.
func (s *Scheduler) placeImmediate(l *Lease, total time.Duration, sp []stepSpec, now time.Time) {
	preempts := s.rule.Preempts(l)
	ends := s.bootEnds(now)
	if len(ends) == 0 {
		if !preempts {
			s.reject(l, now, ReasonNoCapacity, "no room in its interval")
			return
		}
		s.preemptFor(l, now, now, total, sp, now)
		return
	}
	s.dropLazy()
	limit := now.Add(s.cfg.ImmediateBootWait)
	within := ends[:0:0]
	for _, t := range ends {
		if !t.After(limit) {
			within = append(within, t)
		}
	}
	if s.afterBoot(l, within, total, sp, now, preempts) {
		return
	}
	no := &refusal{ReasonNoCapacity, "no room in its interval", true}
	if preempts {
		pp, why := s.planPreemption(l, now, total, now, false)
		if why == nil {
			if !s.applyPreemption(l, pp, sp, now) {
				s.reject(l, now, ReasonNoCapacity, "its reservation was refused once the preemption was applied")
			}
			return
		}
		no = why
	}
	beyond := ends[len(within):]
	if t, ok := s.fitsAfterBoot(l, beyond, total, now, preempts); ok {
		s.reject(l, now, ReasonBootWaitTooLong, fmt.Sprintf("fits only once hosts being switched on are on, at %s: a wait of %s, over scheduler.immediate_boot_wait (%s)",
			FormatTime(t), t.Sub(now), s.cfg.ImmediateBootWait))
		return
	}
	s.reject(l, now, no.reason, no.detail)
}

// afterBoot places l at the first of the boot ends (ascending) where it
// fits without preempting, or else, if it may preempt, at the first where
// preempting makes room; it reports whether it did.
func (s *Scheduler) afterBoot(l *Lease, ends []time.Time, total time.Duration, sp []stepSpec, now time.Time, preempts bool) bool {
	for _, t := range ends {
		if p, ok := s.find(l, t, t, total, nil); ok {
			if err := s.build(l, p, sp); err != nil {
				s.log.LeaseError(l.ID, "planning immediate lease after a boot", err)
				return false
			}
			l.setState(now, Scheduled, "", "")
			s.noteBootWait(l, now)
			return true
		}
	}
	if !preempts || s.cfg.Policy == preempt.NOP {
		return false
	}
	for _, t := range ends {
		pp, no := s.planPreemption(l, t, total, now, false)
		if no != nil {
			continue
		}
		if !s.applyPreemption(l, pp, sp, now) {
			return false
		}
		s.noteBootWait(l, now)
		return true
	}
	return false
}

// fitsAfterBoot returns the first of the boot ends at which l would fit
// (preempting, if it may), changing nothing.
func (s *Scheduler) fitsAfterBoot(l *Lease, ends []time.Time, total time.Duration, now time.Time, preempts bool) (time.Time, bool) {
	for _, t := range ends {
		if _, ok := s.find(l, t, t, total, nil); ok {
			return t, true
		}
		if preempts && s.cfg.Policy != preempt.NOP {
			if _, no := s.planPreemption(l, t, total, now, false); no == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// noteBootWait records in l's history that it waits for hosts being
// switched on.
func (s *Scheduler) noteBootWait(l *Lease, now time.Time) {
	start := l.PlannedStart()
	l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonWaitsForBoot,
		Detail: fmt.Sprintf("starts at %s, when hosts being switched on are on (a wait of %s, within scheduler.immediate_boot_wait %s)",
			FormatTime(start), start.Sub(now), s.cfg.ImmediateBootWait)})
}

// bootEnds lists the distinct times after now at which a planned boot is
// over, ascending, at most maxBootWaitStarts.
func (s *Scheduler) bootEnds(now time.Time) []time.Time {
	var out []time.Time
	for _, h := range s.power.pending {
		if p := s.power.hosts[h]; p != nil && !p.boot.IsZero() && p.on.After(now) {
			out = append(out, p.on)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	out = slices.CompactFunc(out, time.Time.Equal)
	if len(out) > maxBootWaitStarts {
		out = out[:maxBootWaitStarts]
	}
	return out
}
