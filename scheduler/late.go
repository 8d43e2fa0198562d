package scheduler

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// CatchUp is called once after a restore, before the first Advance, with
// the time the daemon starts again (now) and the last time it is known to
// have run (lastUp; the scheduler's own saved time when that is later or
// lastUp is zero): leases whose plan was to begin in between have not.
//
//   - An advance reservation or immediate lease starts now instead, on the
//     hosts of its plan, and keeps its full length where its hosts are
//     free for it; otherwise it runs as long as fits before the next
//     reservation on its hosts (never less than it would have had with
//     its planned end).
//   - A queued lease is planned again by the queue.
//
// Each gets a history entry (ReasonStartedLate, saying how long the daemon
// was down) and a Change.
func (s *Scheduler) CatchUp(lastUp, now time.Time) []Change {
	if lastUp.Before(s.now) {
		lastUp = s.now
	}
	down := now.Sub(lastUp)
	var out []Change
	for _, id := range s.ids {
		l := s.leases.get(id)
		if l.State != Scheduled || l.entered || l.cur >= len(l.plan) || !l.plan[l.cur].start.Before(now) {
			continue
		}
		c := Change{Lease: id, Reason: ReasonStartedLate}
		late := now.Sub(l.plan[l.cur].start)
		if l.queued {
			s.unplan(l)
			s.dirty = true
			c.Detail = fmt.Sprintf("daemon was down %s; its plan was to begin %s ago: planned again by the queue", toMS(down), toMS(late))
		} else {
			c.Detail = fmt.Sprintf("daemon was down %s; starts %s after its planned start and %s", toMS(down), toMS(late), s.startLate(l, now))
		}
		l.History = append(l.History, Event{At: now, State: l.State, Reason: c.Reason, Detail: c.Detail})
		out = append(out, c)
	}
	s.setNow(now)
	return out
}

// startLate plans fixed lease l, whose plan has not begun, to begin at now
// on the same hosts, its run as long as its remaining time where that
// fits (and its deadline, if any, allows), and says what it got.
func (s *Scheduler) startLate(l *Lease, now time.Time) string {
	hosts := l.plan[l.cur].hosts
	old := s.takePlan(l)
	sp, total := s.steps(l)
	extra := total - l.Remaining // preparing and shutting down
	limit, why := now.Add(total), "its hosts are reserved from then"
	if !l.Deadline.IsZero() && l.Deadline.Before(limit) {
		limit, why = l.Deadline, "its deadline"
	}
	end := s.roomUntil(l, hosts, now, limit)
	if end.Before(limit) {
		why = "its hosts are reserved from then"
	}
	run := end.Sub(now) - extra
	if run <= 0 || s.build(l, placement{start: now, hosts: hosts}, withRun(sp, run)) != nil {
		s.restorePlan(l, old)
		return "keeps its planned end: its hosts are not free for longer"
	}
	if run >= l.Remaining {
		return fmt.Sprintf("keeps its full %s, to %s", toMS(run), stamp(end))
	}
	return fmt.Sprintf("runs %s of its %s, to %s: %s", toMS(run), toMS(l.Remaining), stamp(end), why)
}

// roomUntil is the latest end in (from, until] such that lease l's VMs fit
// on hosts over the whole of [from, end): usage only changes at the
// table's change points, so the answer is until or one of them.
func (s *Scheduler) roomUntil(l *Lease, hosts []slottable.HostID, from, until time.Time) time.Time {
	count := hostsOf(hosts)
	fits := func(end time.Time) bool {
		for h, n := range count {
			if !s.roomFor(h, from, end, s.need(l, n), nil) {
				return false
			}
		}
		return true
	}
	last := from
	for _, t := range append(s.table.ChangePoints(from.Add(time.Nanosecond), until), until) {
		if !fits(t) {
			return last
		}
		last = t
	}
	return last
}

// withRun is steps sp with the run phase lasting run.
func withRun(sp []stepSpec, run time.Duration) []stepSpec {
	out := append([]stepSpec(nil), sp...)
	for i := range out {
		if out[i].kind == phRun {
			out[i].d = run
		}
	}
	return out
}

// toMS prints a duration to the millisecond.
func toMS(d time.Duration) string { return d.Round(time.Millisecond).String() }
