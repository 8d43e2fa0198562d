package scheduler

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// preemption is a decision to preempt, not yet applied: the victims with
// their operations laid out, and where the preempting lease then starts.
type preemption struct {
	victims []*victim
	p       placement
	method  preempt.Method
}

// refusal is why no preemption makes room for a lease at one start.
type refusal struct {
	reason Reason
	detail string
	final  bool // no other start can do better (the policy is NOP)
}

// maxPreemptStarts bounds how many starts a deadline lease tries
// preemption at: its earliest start and the next change points of the
// slot table up to its latest feasible start.
const maxPreemptStarts = 16

// preemptFor makes room for fixed lease l by preempting external leases
// with the configured policy, or rejects it. It tries the start from
// (an advance reservation's start, now for an immediate lease) and, for a
// deadline lease, the later starts up to until (its latest feasible
// start) at which the slot table changes; the first that works is taken.
func (s *Scheduler) preemptFor(l *Lease, from, until time.Time, total time.Duration, sp []stepSpec, now time.Time) {
	if s.lazyN > 0 {
		if no := s.lazyRefusal(l, from, until, total); no != nil {
			s.reject(l, now, no.reason, no.detail)
			return
		}
		if no := s.preemptRefusedAmid(l, from, until, total, now); no != nil {
			s.reject(l, now, no.reason, no.detail)
			return
		}
		s.dropLazy()
	}
	var first *refusal
	for _, at := range s.preemptStarts(from, until) {
		pp, no := s.planPreemption(l, at, total, now, l.Req.Kind == AdvanceReservation)
		if no == nil {
			if !s.applyPreemption(l, pp, sp, now) {
				s.reject(l, now, ReasonNoCapacity, "its reservation was refused once the preemption was applied")
			}
			return
		}
		if first == nil {
			first = no
		}
		if no.final {
			break
		}
	}
	s.reject(l, now, first.reason, first.detail)
}

// preemptRefusedAmid is preemptFor's refusal of fixed lease l, decided
// amid the lazy plans as without them, or nil when preemptFor would
// preempt or cannot be followed there. It follows it only for one start
// (from equal to until: the table's change points, which the lazy plans
// add to, give the others): planPreemption with the lazy plans left out
// of its searches (amid), of the candidates and of the image operations
// its victims' must not overlap (blocks); a deadline-bound victim, planned
// again on a copy of the table (lateVictims), leaves it unsure. Nothing
// changes, and the count of searches is as if it had not asked unless it
// refuses (preemptFor then asks no more).
func (s *Scheduler) preemptRefusedAmid(l *Lease, from, until time.Time, total time.Duration, now time.Time) *refusal {
	if !from.Equal(until) {
		return nil
	}
	search := maps.Clone(s.stats.Search)
	s.amid, s.amidUnsure = true, false
	_, no := s.planPreemption(l, from, total, now, l.Req.Kind == AdvanceReservation)
	s.amid = false
	if no == nil || s.amidUnsure {
		s.stats.Search = search
		return nil
	}
	s.refusedAmid++
	return no
}

// preemptQueued makes room for queued local lease l at from (its earliest
// start) by preempting external leases, and plans it there: local leases
// take the machines they need from external ones (docs/models.md §3),
// whatever their kind. It does so only if l then starts before
// placement p, where it fits without preempting (if fits), and before was
// (if not zero). It reports whether l got a plan; when not, nothing
// changed.
func (s *Scheduler) preemptQueued(l *Lease, from time.Time, total time.Duration, sp []stepSpec, p placement, fits bool, was, now time.Time) bool {
	if !s.rule.Preempts(l) || s.cfg.Policy == preempt.NOP {
		return false
	}
	pp, no := s.planPreemption(l, from, total, now, false)
	if no != nil || (fits && !pp.p.start.Before(p.start)) || (!was.IsZero() && !pp.p.start.Before(was)) {
		return false
	}
	if !s.applyPreemption(l, pp, sp, now) {
		s.setQueuedState(l, now)
		return false
	}
	return true
}

// preemptStarts lists the starts preemption is tried at: from, then (when
// until is after it) the change points of the slot table up to until,
// at most maxPreemptStarts in all.
func (s *Scheduler) preemptStarts(from, until time.Time) []time.Time {
	out := []time.Time{from}
	for t := from; len(out) < maxPreemptStarts; {
		next, ok := s.table.NextChangeAfter(t)
		if !ok || next.After(until) {
			break
		}
		out = append(out, next)
		t = next
	}
	return out
}

// planPreemption chooses the leases to preempt so that l fits at at
// (lasting total) and lays their operations out; nothing is changed. With
// backward set (an advance reservation) the operations must be over by
// at; otherwise l may start later, when they are. A chosen migratable
// lease with a deadline that could not then be planned again to end by
// its deadline is dropped from the candidates and the choice made again.
func (s *Scheduler) planPreemption(l *Lease, at time.Time, total time.Duration, now time.Time, backward bool) (preemption, *refusal) {
	cands := s.candidates(l, at, at.Add(total))
	dropped := 0
	for {
		pc := make([]preempt.Candidate, len(cands))
		for i, v := range cands {
			pc[i] = preempt.Candidate{Lease: v.l.ID, VMs: v.l.Req.VMs, Overhead: v.cost}
		}
		feasible := s.oracle(l, at, total, cands)
		choice, err := preempt.Choose(s.cfg.Policy, pc, feasible, s.cfg.ExactLimit)
		switch {
		case errors.Is(err, preempt.ErrNoPreemption):
			return preemption{}, refusalNOP(len(cands) > 0 && feasible(fullSet(len(cands))))
		case err != nil && dropped > 0:
			return preemption{}, &refusal{ReasonNoCapacity, "no room in its interval without preempting a migratable lease that could then not end by its deadline", false}
		case err != nil:
			return preemption{}, refusalEvenPreempting()
		}
		s.stats.Search[string(choice.Method)]++
		victims := make([]*victim, len(choice.Indexes))
		for i, idx := range choice.Indexes {
			victims[i] = cands[idx]
			victims[i].holdHosts()
		}
		start, ok := s.layout(victims, at, now, backward)
		if !ok {
			return preemption{}, &refusal{ReasonSuspendTooLate, "preempting would not finish before its start", false}
		}
		gone := map[LeaseID]bool{}
		for _, v := range victims {
			gone[v.l.ID] = true
		}
		ignore := func(r slottable.Reservation) bool { return gone[r.Lease] }
		p, ok := s.find(l, start, start, total, ignore)
		if !ok || (!l.Deadline.IsZero() && start.Add(total).After(l.Deadline)) {
			return preemption{}, &refusal{ReasonSuspendTooLate, "no room once the preemption is over", false}
		}
		late := s.lateVictims(l, p, total, victims, now)
		if len(late) == 0 {
			return preemption{victims: victims, p: p, method: choice.Method}, nil
		}
		cands = without(cands, late)
		dropped += len(late)
	}
}

// applyPreemption preempts the victims and builds l's plan. It reports
// false if the slot table refused l's plan (a bug: the checker's refusal
// is logged).
func (s *Scheduler) applyPreemption(l *Lease, pp preemption, sp []stepSpec, now time.Time) bool {
	detail := fmt.Sprintf("by lease %d (%s, %s search)", l.ID, s.cfg.Policy, pp.method)
	for _, v := range pp.victims {
		s.apply(v, now, detail)
	}
	s.stats.Preemptions++
	if err := s.build(l, pp.p, sp); err != nil {
		s.log.LeaseError(l.ID, "planning preempting lease", err)
		return false
	}
	ids := make([]LeaseID, len(pp.victims))
	for i, v := range pp.victims {
		ids[i] = v.l.ID
	}
	l.setState(now, Scheduled, "", fmt.Sprintf("preempted leases %v (%s, %s search)", ids, s.cfg.Policy, pp.method))
	// Restarts are held in the order lateVictims checked them.
	byDeadline := append([]*victim(nil), pp.victims...)
	sort.SliceStable(byDeadline, func(i, j int) bool { return byDeadline[i].l.Deadline.Before(byDeadline[j].l.Deadline) })
	for _, v := range byDeadline {
		s.promise(v, l, now)
	}
	return true
}

// without returns the candidates other than those in drop.
func without(cands, drop []*victim) []*victim {
	gone := map[LeaseID]bool{}
	for _, v := range drop {
		gone[v.l.ID] = true
	}
	out := make([]*victim, 0, len(cands))
	for _, v := range cands {
		if !gone[v.l.ID] {
			out = append(out, v)
		}
	}
	return out
}

// refusalNOP is the refusal under NOP: full says the lease would fit with
// every candidate preempted.
func refusalNOP(full bool) *refusal {
	if full {
		return &refusal{ReasonNoPreemption, "fits only by preempting, and the policy is NOP", true}
	}
	return &refusal{ReasonNoCapacity, "no room in its interval", true}
}

// refusalEvenPreempting is the refusal when preempting every candidate
// would not make room.
func refusalEvenPreempting() *refusal {
	return &refusal{ReasonNoCapacity, "no room in its interval, even preempting every preemptable lease", false}
}
