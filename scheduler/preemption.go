package scheduler

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// victim is a lease chosen for preemption and what will be done to it.
type victim struct {
	l      *Lease
	op     Operation
	cost   time.Duration // h(L)
	opLen  time.Duration // how long its operation holds its hosts
	hosts  map[slottable.HostID]int
	from   time.Time // the operation's interval
	to     time.Time
	images bool // the operation writes memory images (subject to exclusion)
}

// candidates are the leases that may be preempted to make room over
// [at, end): external, preemptable, and either running or not yet begun.
func (s *Scheduler) candidates(at, end time.Time, self LeaseID) []*victim {
	seen := map[LeaseID]bool{self: true}
	var out []*victim
	for _, r := range s.table.Overlapping(at, end) {
		if seen[r.Lease] {
			continue
		}
		seen[r.Lease] = true
		l := s.leases[r.Lease]
		if l == nil || !l.Preemptable() {
			continue
		}
		running := l.entered && l.plan[l.cur].kind == phRun
		notBegun := !l.entered && l.State == Scheduled && l.queued
		if !running && !notBegun {
			continue
		}
		op := s.cfg.operationFor(l)
		if notBegun {
			op = OpUnreserve
		}
		v := &victim{l: l, op: op, cost: s.cfg.Overheads.PreemptionCost(op, l.mems())}
		switch op {
		case OpSuspend, OpMigrate:
			v.opLen, v.images = s.cfg.Overheads.Suspend(l.mems()), true
		case OpCancel, OpRequeue:
			v.opLen = s.cfg.Overheads.Cancel(l.Req.VMs)
		}
		if running {
			v.hosts = hostsOf(l.plan[l.cur].hosts)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].l.ID < out[j].l.ID })
	return out
}

// oracle answers "does lease l fit over [at, at+d) if these candidates are
// preempted?" Hosts untouched by any candidate are counted once.
func (s *Scheduler) oracle(l *Lease, at time.Time, d time.Duration, cands []*victim) preempt.Feasible {
	end := at.Add(d)
	per := l.Per()
	affected := map[slottable.HostID]bool{}
	for _, r := range s.table.Overlapping(at, end) {
		for _, v := range cands {
			if v.l.ID == r.Lease {
				affected[r.Host] = true
			}
		}
	}
	base := 0
	for _, h := range s.table.Hosts() {
		if !affected[h.ID] {
			base += s.table.FitCount(h.ID, at, end, per, nil)
		}
	}
	hosts := make([]slottable.HostID, 0, len(affected))
	for h := range affected {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i] < hosts[j] })
	return func(set preempt.Set) bool {
		gone := map[LeaseID]bool{}
		for _, i := range set.Indexes() {
			gone[cands[i].l.ID] = true
		}
		ignore := func(r slottable.Reservation) bool { return gone[r.Lease] }
		n := base
		for _, h := range hosts {
			if n >= l.Req.VMs {
				return true
			}
			n += s.table.FitCount(h, at, end, per, ignore)
		}
		return n >= l.Req.VMs
	}
}

// preemptFor tries to make room for lease l at at (lasting total) by
// preempting external leases with the configured policy.
func (s *Scheduler) preemptFor(l *Lease, at time.Time, total time.Duration, sp []stepSpec, now time.Time) {
	cands := s.candidates(at, at.Add(total), l.ID)
	pc := make([]preempt.Candidate, len(cands))
	for i, v := range cands {
		pc[i] = preempt.Candidate{Lease: v.l.ID, VMs: v.l.Req.VMs, Overhead: v.cost}
	}
	feasible := s.oracle(l, at, total, cands)
	choice, err := preempt.Choose(s.cfg.Policy, pc, feasible, s.cfg.ExactLimit)
	switch {
	case errors.Is(err, preempt.ErrNoPreemption):
		if len(cands) > 0 && feasible(fullSet(len(cands))) {
			s.reject(l, now, ReasonNoPreemption, "fits only by preempting, and the policy is NOP")
		} else {
			s.reject(l, now, ReasonNoCapacity, "no room in its interval")
		}
		return
	case err != nil:
		s.reject(l, now, ReasonNoCapacity, "no room in its interval, even preempting every preemptable lease")
		return
	}
	s.stats.Search[string(choice.Method)]++
	victims := make([]*victim, len(choice.Indexes))
	for i, idx := range choice.Indexes {
		victims[i] = cands[idx]
	}
	start, ok := s.layout(victims, at, now, l.Req.Kind == AdvanceReservation)
	if !ok {
		s.reject(l, now, ReasonSuspendTooLate, "preempting would not finish before its start")
		return
	}
	gone := map[LeaseID]bool{}
	for _, v := range victims {
		gone[v.l.ID] = true
	}
	ignore := func(r slottable.Reservation) bool { return gone[r.Lease] }
	p, ok := s.find(l, start, start, total, ignore)
	if !ok || (!l.Deadline.IsZero() && start.Add(total).After(l.Deadline)) {
		s.reject(l, now, ReasonSuspendTooLate, "no room once the preemption is over")
		return
	}
	detail := fmt.Sprintf("by lease %d (%s, %s search)", l.ID, s.cfg.Policy, choice.Method)
	for _, v := range victims {
		s.apply(v, now, detail)
	}
	s.stats.Preemptions++
	s.accept(l, p, sp, now)
	ids := make([]LeaseID, len(victims))
	for i, v := range victims {
		ids[i] = v.l.ID
	}
	l.History[len(l.History)-1].Detail = fmt.Sprintf("preempted leases %v (%s, %s search)", ids, s.cfg.Policy, choice.Method)
}

// layout places the victims' operations in time. With backward set (an
// advance reservation) they end by at; an operation that would have to
// begin before now fails the layout. Otherwise they are laid out from now
// on, and the preempting lease starts when they are over (not before at).
// Operations that write memory images do not overlap when they share a host
// (exclusion local) or at all (exclusion global).
func (s *Scheduler) layout(victims []*victim, at, now time.Time, backward bool) (time.Time, bool) {
	if s.layoutBackward(victims, at, now) {
		return at, true
	}
	if backward {
		return time.Time{}, false
	}
	start := at
	var placed []*victim
	for _, v := range victims {
		v.from = now
		for moved := true; moved; {
			moved = false
			for _, b := range s.blocks(v, placed, victims) {
				if b.start.Before(v.from.Add(v.opLen)) && b.end.After(v.from) {
					v.from, moved = b.end, true
				}
			}
		}
		v.to = v.from.Add(v.opLen)
		if v.to.After(start) {
			start = v.to
		}
		placed = append(placed, v)
	}
	return start, s.within(victims)
}

func (s *Scheduler) layoutBackward(victims []*victim, at, now time.Time) bool {
	var placed []*victim
	for _, v := range victims {
		v.to = at
		for moved := true; moved; {
			moved = false
			for _, b := range s.blocks(v, placed, victims) {
				if b.start.Before(v.to) && b.end.After(v.to.Add(-v.opLen)) {
					v.to, moved = b.start, true
				}
			}
		}
		v.from = v.to.Add(-v.opLen)
		if v.from.Before(now) {
			return false
		}
		placed = append(placed, v)
	}
	return s.within(victims)
}

// interval is a span of time another image operation holds.
type interval struct{ start, end time.Time }

// blocks are the intervals v's operation must not overlap: the operations
// already placed for this decision and those of other leases in the table
// that write or read memory images, on v's hosts (exclusion local) or
// anywhere (global). Operations that write no image are never blocked.
func (s *Scheduler) blocks(v *victim, placed, victims []*victim) []interval {
	if !v.images {
		return nil
	}
	var out []interval
	for _, w := range placed {
		if s.conflict(v, w) {
			out = append(out, interval{w.from, w.to})
		}
	}
	skip := map[LeaseID]bool{}
	for _, w := range victims {
		skip[w.l.ID] = true
	}
	for _, r := range s.table.Overlapping(s.now, v.l.plannedEnd().Add(v.opLen)) {
		if skip[r.Lease] || (r.Kind != slottable.KindSuspend && r.Kind != slottable.KindResume && r.Kind != slottable.KindMigrate) {
			continue
		}
		if s.cfg.Exclusion == "global" || v.hosts[r.Host] > 0 {
			out = append(out, interval{r.Start, r.End})
		}
	}
	return out
}

// within reports whether every running victim's operation begins during
// its run and ends before its plan would have: the operation holds only
// what the victim already held.
func (s *Scheduler) within(victims []*victim) bool {
	for _, v := range victims {
		if v.op == OpUnreserve {
			continue
		}
		if v.l.runPhase(v.from) < 0 || v.to.After(v.l.plannedEnd()) {
			return false
		}
	}
	return true
}

func (s *Scheduler) conflict(a, b *victim) bool {
	if !a.images || !b.images {
		return false
	}
	if s.cfg.Exclusion == "global" {
		return true
	}
	for h := range a.hosts {
		if b.hosts[h] > 0 {
			return true
		}
	}
	return false
}

// apply preempts one victim: its run is cut where its operation begins, and
// the operation is reserved on its hosts.
func (s *Scheduler) apply(v *victim, now time.Time, detail string) {
	l := v.l
	l.Preemptions++
	l.Overhead += v.cost
	l.Ops[v.op]++
	l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonPreempted,
		Detail: fmt.Sprintf("%s at %s %s", v.op, v.from.Sub(s.epoch), detail)})
	l.Reason, l.Detail = ReasonPreempted, detail
	l.preemptPending = true
	if v.op == OpUnreserve {
		l.preemptPending = false
		s.unplan(l)
		s.requeueFront(l)
		l.setState(now, Queued, ReasonPreempted, detail)
		return
	}
	hosts := l.plan[l.runPhase(v.from)].hosts
	s.cut(l, v.from)
	kind := phStop
	switch v.op {
	case OpSuspend, OpMigrate:
		kind, l.after = phSuspend, afterSuspend
		l.prevHost = hostsOf(hosts)
		l.migrate = v.op == OpMigrate
	case OpRequeue:
		l.after = afterRequeue
	default:
		l.after = afterCancel
	}
	if err := s.appendPhase(l, kind, v.from, v.to, hosts); err != nil {
		s.log.WithError(err).WithField("lease_id", l.ID).Error("reserving preemption")
	}
	if !l.entered || l.plan[l.cur].end.After(now) {
		return
	}
	s.step(l, now)
}

func fullSet(n int) preempt.Set {
	set := preempt.NewSet(n)
	for i := 0; i < n; i++ {
		set.Add(i)
	}
	return set
}
