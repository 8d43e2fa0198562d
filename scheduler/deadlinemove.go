package scheduler

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Moving accepted deadline leases to make room (docs/models.md §1). A
// deadline lease accepted at submission is planned at once, and its plan
// is kept: queued leases give way to it, a later lease does not. But a
// deadline lease that has not started may start anywhere between its
// ready time and its deadline less its duration: that slack is room a new
// lease may use. When a new fixed lease (deadline, advance reservation or
// immediate) finds no room in its interval, moveDeadlines plans it again
// together with the accepted deadline leases that have not started and
// stand in its way, each within its own interval; only if no such plan
// exists is the new lease refused (or, if local, does it preempt).
//
// Which leases move: those whose plans overlap the new lease's interval,
// then those whose plans overlap the interval of one that moves, and so
// on. Their plans are taken, and the search lays the whole set out again
// in order of start (earliest deadline first among the leases it tries at
// each step), each lease at its ready time or at a time something ends,
// backtracking when a lease no longer fits before its deadline. Any
// schedule of the set can be shifted left until each lease starts at its
// ready time or when another one ends, so when nothing else is reserved
// in their intervals (hosts alike, the leases' VMs a whole host each) the
// search finds a schedule whenever there is one; it tries at most
// maxMoveTries placements. If it finds none, every plan taken is put back
// exactly as it was.

// maxMoveTries bounds the placements the search for a re-plan tries
// before it gives up.
const maxMoveTries = 4096

// mover is a lease the re-plan lays out: its steps, the interval its start
// must fall in, and (once placed in the search) where it went.
type mover struct {
	l           *Lease
	sp          []stepSpec
	total       time.Duration
	from, until time.Time // its start falls in [from, until]
	old         []phase   // its plan before the re-plan (nil for the new lease)
	p           placement
	ids         []slottable.ResID
	placed      bool
}

// deadlineOf is when the mover must end by.
func (m *mover) deadlineOf() time.Time { return m.until.Add(m.total) }

// movableDeadline reports whether l is an accepted deadline lease that has
// not started, holds a plan that starts no earlier than e, and is not in
// the queue: its plan may move within its own interval.
func movableDeadline(l *Lease, e time.Time) bool {
	return l.Req.Kind == Deadline && !l.queued && !l.hold && l.State == Scheduled && !l.entered &&
		l.FirstStart.IsZero() && !l.Deadline.IsZero() && len(l.plan) > 0 && len(l.promise) == 0 &&
		!l.plan[0].start.Before(e)
}

// moveDeadlines tries to plan fixed lease l (steps sp lasting total,
// starting in [from, until]) by moving the accepted deadline leases that
// have not started within their own intervals. It reports whether l got
// a plan; if not, nothing changed. The leases moved get a history entry
// (ReasonMovedForDeadline) saying where they went.
func (s *Scheduler) moveDeadlines(l *Lease, from, until time.Time, total time.Duration, sp []stepSpec, now time.Time) bool {
	ms := s.moversFor(&mover{l: l, sp: sp, total: total, from: from, until: until}, now)
	if len(ms) == 1 {
		return false
	}
	for _, m := range ms {
		if m.l != l {
			m.old = s.takePlan(m.l)
		}
	}
	// The search places l somewhere in [from, until] on the table without
	// the plans just taken and with some movers laid out: where l does not
	// fit without them, it does not fit with them, so when it fits nowhere
	// there the search cannot succeed, whatever its budget. (Skipping it
	// leaves out reservations that it would have added and removed again;
	// the table's later IDs are shifted alike, in the same order.) That
	// is asked without the lazy plans (amid, lazyplan.go); the search,
	// which counts the table's change points, drops them.
	s.amid = true
	_, ok := s.find(l, from, until, total, nil)
	s.amid = false
	found := false
	if ok {
		s.dropLazy()
		budget := maxMoveTries
		if s.moveTries > 0 {
			budget = s.moveTries
		}
		found = s.layMovers(ms, time.Time{}, &budget)
		s.moveLeft = budget
	}
	for _, m := range ms { // the search's reservations; the plans are built below
		for _, id := range m.ids {
			_ = s.table.Remove(id)
		}
		m.ids = nil
	}
	if found && s.buildMovers(ms) {
		for _, m := range ms {
			if m.l != l && movedFrom(m.l, m.old) {
				m.l.History = append(m.l.History, Event{At: now, State: m.l.State, Reason: ReasonMovedForDeadline,
					Detail: fmt.Sprintf("moved from %s to %s, still ending by its deadline, to make room for lease %d",
						FormatTime(m.old[0].start), FormatTime(m.l.PlannedStart()), l.ID)})
			}
		}
		return true
	}
	for _, m := range ms {
		if m.l != l {
			// The table is as it was when the plan was taken: this
			// succeeds (restorePlan logs it if not).
			s.restorePlan(m.l, m.old)
		}
	}
	return false
}

// moversFor is the new lease's mover followed by those of the movable
// deadline leases in its way (see above), earliest deadline first.
func (s *Scheduler) moversFor(first *mover, now time.Time) []*mover {
	ms := []*mover{first}
	live := s.leases.liveDeadlines()
	if len(live) == 0 || len(live) == 1 && live[0] == first.l.ID {
		return ms // no other deadline lease: none can move
	}
	e := s.earliest(now)
	in := map[LeaseID]bool{first.l.ID: true}
	for i := 0; i < len(ms); i++ {
		// The leases with a reservation in the mover's interval, found
		// from the deadline leases' own reservations: the set found is
		// the same in any order, and sorted below.
		a, b := ms[i].from, ms[i].deadlineOf()
		for _, id := range live {
			q := s.leases.get(id)
			if in[q.ID] || !movableDeadline(q, e) || !s.table.LeaseOverlaps(uint64(q.ID), a, b) {
				continue
			}
			in[q.ID] = true
			ms = append(ms, s.moverOf(q, e))
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].deadlineOf(), ms[j].deadlineOf()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return ms[i].l.ID < ms[j].l.ID
	})
	return ms
}

// moverOf is movable deadline lease q as a mover, starting no earlier
// than e.
func (s *Scheduler) moverOf(q *Lease, e time.Time) *mover {
	sp, total := s.steps(q)
	from := q.Ready
	if from.Before(e) {
		from = e
	}
	return &mover{l: q, sp: sp, total: total, from: from, until: q.Deadline.Add(-total)}
}

// layMovers places the movers not yet placed, each starting no earlier
// than last, in s.table (reservations only, not plans), and reports
// whether all found a place; when not, it has placed none of them.
func (s *Scheduler) layMovers(ms []*mover, last time.Time, budget *int) bool {
	for _, m := range ms {
		if !m.placed && m.until.Before(last) {
			return false // it had to start before a lease already laid out
		}
	}
	done := true
	for _, m := range ms {
		if m.placed {
			continue
		}
		done = false
		t := m.from
		if t.Before(last) {
			t = last
		}
		for !t.After(m.until) && *budget > 0 {
			if s.futileFrom(ms, m, t, budget) {
				break
			}
			at, skipped, fits := s.moverSkip(m, t)
			if skipped >= *budget {
				*budget = 0 // the tries that fail use it up
				break
			}
			*budget -= skipped
			if !fits {
				break // every try left fails
			}
			t = at
			if s.futileFrom(ms, m, t, budget) {
				break
			}
			*budget--
			if s.tryMover(m, t) {
				if s.layMovers(ms, t, budget) {
					return true
				}
				for _, id := range m.ids {
					_ = s.table.Remove(id)
				}
				m.ids, m.placed = nil, false
			}
			next, ok := s.table.NextChangeAfter(t)
			if !ok {
				break
			}
			t = next
		}
	}
	return done
}

// futileFrom reports whether layMovers's tries of m from t on are
// futile, and if so takes what they would cost from the budget. With m
// placed at t or later, layMovers gives up first thing when another mover
// not placed must start before t; starts only grow in the loop over m's
// tries, so then every try left would be laid out and taken back at
// once, changing nothing. Each costs the budget one, whether moverSkip
// skips it or it is tried: one for t and one for each change point of
// the table after it up to m.until (the table without m, as each try
// finds it).
func (s *Scheduler) futileFrom(ms []*mover, m *mover, t time.Time, budget *int) bool {
	if s.exhaustive {
		return false
	}
	for _, o := range ms {
		if o != m && !o.placed && o.until.Before(t) {
			*budget = max(0, *budget-1-s.table.ChangesBetween(t, m.until.Add(time.Nanosecond)))
			return true
		}
	}
	return false
}

// moverSkip is where layMovers's tries of m from t on first succeed: the
// first start in [t, m.until] at which m fits (a try at t, or at the
// table's change points after it, which are the starts EarliestFit can
// answer), and how many tries before it fail (from t, the change points
// before it). When none does (false), skipped counts every try up to
// m.until. Skipping them, each counted against the budget, changes
// nothing: a try that fails changes nothing. (A lease moved by an admin
// looks on other hosts first over the interval asked: it tries one start
// at a time.)
func (s *Scheduler) moverSkip(m *mover, t time.Time) (time.Time, int, bool) {
	if len(m.l.avoid) > 0 || m.l.saved {
		return t, 0, true
	}
	p, ok := s.find(m.l, t, m.until, m.total, nil)
	if !ok {
		return time.Time{}, 1 + s.table.ChangesBetween(t, m.until.Add(time.Nanosecond)), false
	}
	if p.start.Equal(t) {
		return t, 0, true
	}
	return p.start, 1 + s.table.ChangesBetween(t, p.start), true
}

// tryMover reserves m's steps starting exactly at t, if they fit.
func (s *Scheduler) tryMover(m *mover, t time.Time) bool {
	p, ok := s.find(m.l, t, t, m.total, nil)
	if !ok {
		return false
	}
	ids, ok := s.reserveSteps(m.l, p, m.sp)
	if !ok {
		return false
	}
	m.p, m.ids, m.placed = p, ids, true
	return true
}

// buildMovers makes the placements the search found the movers' plans.
// It reports false, having built none, if the table refused one (which
// does not happen: the search reserved the same steps).
func (s *Scheduler) buildMovers(ms []*mover) bool {
	for i, m := range ms {
		if err := s.build(m.l, m.p, m.sp); err != nil {
			s.log.LeaseError(m.l.ID, "planning a moved deadline lease", err)
			for _, b := range ms[:i] {
				s.unplan(b.l)
			}
			return false
		}
	}
	return true
}

// movedFrom reports whether l's plan differs from old in its start or its
// hosts.
func movedFrom(l *Lease, old []phase) bool {
	if len(old) == 0 || len(l.plan) == 0 || !old[0].start.Equal(l.plan[0].start) {
		return true
	}
	a, b := old[0].hosts, l.plan[0].hosts
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return true
		}
	}
	return false
}
