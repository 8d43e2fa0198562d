package scheduler

import (
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Plans known to be what a re-plan from scratch gives.
//
// Most fixed leases of a contended run are refused without changing
// anything (no room, even preempting), and the re-plan from scratch that
// follows (lazyplan.go) then proves, lease by lease (keepLazy), that each
// queued lease gets its plan back. When nothing has changed since the
// plans were made from scratch, that proof is known in advance: the
// scheduler keeps a note (exact) that every lazy-eligible queued lease's
// plan is the one a re-plan from scratch gives it, and the pass after a
// refused fixed lease keeps those plans as keepLazy would (settle,
// keepExact), without searching. After a fixed lease accepted without
// taking a lazy plan's room, the same holds for the plans that do not
// overlap its own in time; those that do are asked of keepLazy (the
// fixed lease only takes room, so they start where they do, but the
// mapper may see other options there).
//
// The note is made at the end of a re-plan from scratch (its first pass
// plans every queued lease from scratch, after the deadline-bound ones;
// later passes, if any, must change nothing), or while the queue is
// empty, and holds while:
//
//   - the table from the earliest start on is as it was at exactMark
//     (slottable.Table.UnchangedFrom: a lease ending, on time or early,
//     changes only the past; a deadline-bound lease's plan taken and put
//     back as it was cancels out), and no plan was built or extended
//     since (edits): a plan can come back with the same reservations and
//     its hosts in another order;
//   - a best-effort lease queued since is last in passOrder (not local
//     nor deadline-bound, or alone) and planned at the tail (enqueue moves
//     the note on past it): a lease planned from scratch last is planned
//     on the table with every other plan in it, as enqueue plans it;
//   - no queued lease begins while a lease ahead of it in passOrder is
//     planned to start before it ends (exactEnter): from scratch, the
//     leases ahead were planned without it, and now it runs;
//   - a re-plan in between changes nothing (quiet), nor the order of a
//     plan's hosts (relabel).
//
// What can change a queued lease's plan without changing the table (a
// promise, a pending preemption, hosts to avoid, a start the earliest
// allowed has passed, a chance to preempt or run short) is checked at the
// lease when it is settled (keepExact). A deadline-bound lease is planned
// the usual way in a settling pass (it is not lazy), and the pass settles
// on after it only if that changed nothing. Only conservative
// backfilling with passes at every event (no wakeup_interval) and the
// lazy re-plan use the note.

// exactOn reports whether the configuration uses the note at all.
func (s *Scheduler) exactOn() bool {
	return !s.eager && !s.noSettle && s.cfg.Backfilling == BackfillConservative && s.cfg.WakeUp == 0
}

// exactNow reports whether the note holds at now (it does, with nothing
// to say, while the queue is empty).
func (s *Scheduler) exactNow(now time.Time) bool {
	return s.exactOn() && (len(s.queue) == 0 || s.exact && s.quiet(s.exactMark, s.exactEdits, now))
}

// quiet reports whether nothing changed since the table's history mark
// mark, when edits plans had been built: the table from the earliest
// start on is as it was, and no plan was built or extended.
func (s *Scheduler) quiet(mark, edits uint64, now time.Time) bool {
	return s.edits == edits && s.table.UnchangedFrom(mark, s.earliest(now))
}

// noteExact makes or clears the note: after a re-plan from scratch
// (fromScratch), or with the note holding before (held), when what had
// to change nothing did not (quiet).
func (s *Scheduler) noteExact(fromScratch, held, quiet bool) {
	s.exact = (fromScratch || held) && quiet && s.exactOn()
	s.exactMark, s.exactEdits = s.table.FreedMark(), s.edits
}

// exactEnter clears the note when queued lease l begins while a lease
// ahead of it in passOrder is planned to start before l's plan ends.
func (s *Scheduler) exactEnter(l *Lease) {
	if !s.exact {
		return
	}
	end, r, seen := l.plannedEnd(), passRank(l), false
	for _, id := range s.queue {
		q := s.leases.get(id)
		if q == l {
			seen = true
			continue
		}
		// Deadline-bound leases go by deadline: any other may be ahead.
		rq := passRank(q)
		if ahead := rq < r || rq == r && (!seen || r == 0); ahead && len(q.plan) > 0 && q.plan[0].start.Before(end) {
			s.exact = false
			return
		}
	}
}

// settling is a pass's state as it settles: on says it does; after a
// deadline-bound lease planned the usual way, check says that the pass
// settles on only if nothing changed since mark and edits, with the lazy
// plans still lazy (lazy of them). tried says that keepLazy was asked
// about the lease last met and did not keep its plan.
type settling struct {
	on, check, tried bool
	mark, edits      uint64
	lazy             int
}

// settleNext reports whether the pass settles lease l (mayReserve is
// replanPass's); when it does not, and l is deadline-bound, it notes what
// l's planning must leave as it is.
func (s *Scheduler) settleNext(st *settling, l *Lease, now time.Time, mayReserve bool) bool {
	st.tried = false
	if !st.on {
		return false
	}
	if st.check && !(s.lazyN == st.lazy && s.quiet(st.mark, st.edits, now)) {
		st.on = false
		return false
	}
	st.check = false
	if s.isLazy(l) {
		switch s.keepExact(l, now) {
		case exactKept:
			return true
		case exactNear:
			// Its plan meets the fixed lease's: the hosts may differ.
			if s.keepLazy(l, now, mayReserve) {
				return true
			}
			st.tried = true
		}
		st.on = false
		return false
	}
	if !deadlineBound(l) {
		st.on = false
		return false
	}
	*st = settling{on: true, check: true, mark: s.table.FreedMark(), edits: s.edits, lazy: s.lazyN}
	return false
}

// What keepExact did.
const (
	exactNot  = iota // nothing: the lease is not as keepLazy requires
	exactKept        // kept the plan
	exactNear        // nothing: the plan overlaps the fixed lease's in time
)

// keepExact is keepLazy for a pass that settles (the note holds, and the
// fixed lease was refused with nothing changed, or accepted with nothing
// else changed): lazy lease l's plan is the one planning it from scratch
// gives, and it is kept as keepLazy keeps it, unless something about the
// lease itself is not as keepLazy requires, or (accepted) its plan
// overlaps the fixed lease's in time: from scratch it starts where it
// does (the fixed lease only takes room), but the mapper may see other
// options.
func (s *Scheduler) keepExact(l *Lease, now time.Time) int {
	sp, total, from, ok := s.keepable(l, now, true)
	if !ok {
		return exactNot
	}
	was := l.plan[0].start
	if !s.startsAlone(l, was, from) {
		return exactNot
	}
	if !s.settleTo.IsZero() && was.Before(s.settleTo) && s.settleFrom.Before(was.Add(total)) {
		return exactNear
	}
	mark := s.table.FreedMark()
	// The memo is asked as keepLazy asks it (it starts at was: the
	// table from the earliest start on is as when the plan was made), so
	// that it keeps up with the table's history (ForgetFreed).
	q := slottable.Query{N: l.Req.VMs, Per: l.Per(), Duration: total, From: from}
	if fit, ok := s.table.EarliestFitWithout(q, uint64(l.ID), &l.fit); !ok || !fit.Start.Equal(was) {
		return exactNot
	}
	// unplan's gen was counted by deferQueue: build's is left.
	if !s.relabel(l, l.plan[0].hosts, sp, 1, false) {
		return exactNot
	}
	l.noteImages() // as planQueued
	s.setLazy(l, false)
	l.fromScratch = false
	l.scratch = l.fit
	l.kept = 0 // the hosts were not chosen from an answer's options
	l.bound = bound{set: true, mark: mark, from: from, start: was, total: total}
	s.settled++
	return exactKept
}

// settleAfter decides, at the end of placeFixed for fixed lease l, whether
// the pass that follows settles: the note held before the queue gave way
// (exact), and since the table's mark and edits then, with lazy lazy
// plans, l was refused with nothing changed, or accepted with nothing
// else changed and no lazy plan dropped.
func (s *Scheduler) settleAfter(l *Lease, exact bool, mark, edits uint64, lazy int, now time.Time) {
	s.settle, s.settleFrom, s.settleTo = false, time.Time{}, time.Time{}
	if !exact || s.lazyN == 0 || s.lazyN != lazy {
		return
	}
	switch {
	case l.State == Rejected:
		s.settle = s.quiet(mark, edits, now)
	case l.State == Scheduled && len(l.plan) > 0 && s.edits == edits+1 &&
		s.table.UnchangedFromBut(mark, s.earliest(now), uint64(l.ID)):
		s.settle, s.settleFrom, s.settleTo = true, l.plan[0].start, l.plannedEnd()
	}
}

// passRank is l's group in passOrder: deadline-bound leases (0), local
// ones (1), the others (2).
func passRank(l *Lease) int {
	switch {
	case deadlineBound(l):
		return 0
	case l.Req.Origin == Local:
		return 1
	}
	return 2
}
