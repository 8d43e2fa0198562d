package scheduler

import (
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// Who may preempt whom, and which leases a preemption chooses among, in
// one place:
//
//   - whether lease p may preempt lease v: s.rule.MayPreempt(p, v)
//     (PreemptionRule, below; OriginRule is the rule bora applies);
//   - which leases p may preempt over an interval: s.candidates(p, at,
//     end), the set the preemption policy (preempt.Choose: NOP, MOV, MLIP,
//     MOML) then chooses from.
//
// The other places that ask go through these: placeFixed and
// preemptQueued (submit.go, preemptplan.go) and keepPlan (keepplan.go)
// ask the rule whether a lease preempts at all, Evacuate (evacuate.go)
// applies the candidate test to a host it empties, and the energy
// controller (energyctl) asks MayBePreemptedWithin.

// PreemptionRule is the policy of who may preempt whom. It looks at the
// leases' requests (origin, kind, class) and where they are (queued or
// being placed), not at time or the slot table: whether a preemption also
// fits is the scheduler's business (candidates, the oracle, the layout).
type PreemptionRule interface {
	// MayPreempt reports whether preemptor may take victim's machines.
	MayPreempt(preemptor, victim *Lease) bool
	// Preempts reports whether l may preempt some lease: MayPreempt(l, v)
	// is false for every v otherwise.
	Preempts(l *Lease) bool
	// Preemptable reports whether some lease may preempt l:
	// MayPreempt(p, l) is false for every p otherwise.
	Preemptable(l *Lease) bool
}

// OriginRule is bora's rule (docs/models.md §1 and §3): local leases
// have priority over external ones. A local lease preempts whenever it
// needs machines, an advance reservation of either origin preempts to
// hold its start, and the leases preempted are external ones whose class
// is not non-preemptable. An advance reservation that was preempted
// itself and waits in the queue no longer preempts: it waits as any
// external lease.
type OriginRule struct{}

// MayPreempt is Preempts(preemptor) and Preemptable(victim), for two
// different leases.
func (r OriginRule) MayPreempt(preemptor, victim *Lease) bool {
	return preemptor != victim && r.Preempts(preemptor) && r.Preemptable(victim)
}

// Preempts reports whether l is local, or an advance reservation being
// placed (not in the queue).
func (OriginRule) Preempts(l *Lease) bool {
	return l.Req.Origin == Local || (l.Req.Kind == AdvanceReservation && !l.queued)
}

// Preemptable reports whether l is external and not non-preemptable.
func (OriginRule) Preemptable(l *Lease) bool {
	return l.Req.Origin == External && l.Req.Class != NonPreemptable
}

// Rule returns the preemption rule the scheduler applies.
func (s *Scheduler) Rule() PreemptionRule { return s.rule }

// preemptionState reports whether l is in a state a preemption can act
// on now: running (in its run phase: it is suspended, migrated, requeued
// or cancelled) or holding a reservation in the queue without having
// begun (it is unreserved). A lease preparing, suspending, resuming,
// migrating or shutting down is in neither.
func (l *Lease) preemptionState() (running, notBegun bool) {
	running = l.entered && l.plan[l.cur].kind == phRun
	notBegun = !l.entered && l.State == Scheduled && l.queued
	return running, notBegun
}

// candidates are the leases preemptor may preempt to make room over
// [at, end): those with a reservation overlapping it that the rule lets
// it preempt and that are in a state a preemption can act on
// (preemptionState), each with the operation preempting it would be, in
// lease ID order.
func (s *Scheduler) candidates(preemptor *Lease, at, end time.Time) []*victim {
	seen := map[LeaseID]*victim{preemptor.ID: nil} // nil: seen, not a candidate
	var out []*victim
	amid := s.amid && s.lazyN > 0 // the lazy plans left out (preemptRefusedAmid)
	s.table.EachOverlapping(at, end, func(r slottable.Reservation) {
		if amid && s.lazyPlan(r) {
			return
		}
		if v, ok := seen[r.Lease]; ok {
			if v != nil {
				v.over = append(v.over, r.Host)
			}
			return
		}
		seen[r.Lease] = nil
		l := s.leases.get(r.Lease)
		if l == nil || !s.rule.MayPreempt(preemptor, l) {
			return
		}
		running, notBegun := l.preemptionState()
		if !running && !notBegun || notBegun && s.starved(l, s.now) {
			return // a starved lease's reservation stays (starve.go)
		}
		v := s.victimOf(l, running)
		v.over = []slottable.HostID{r.Host}
		seen[r.Lease] = v
		out = append(out, v)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].l.ID < out[j].l.ID })
	return out
}

// candidate is lease l as a candidate victim: its operation, what that
// costs and, running, the hosts it runs on.
func (s *Scheduler) candidate(l *Lease, running bool) *victim {
	v := s.victimOf(l, running)
	v.holdHosts()
	return v
}

// victimOf is candidate without the hosts (a decision looks them up only
// for the victims it chooses: holdHosts).
func (s *Scheduler) victimOf(l *Lease, running bool) *victim {
	op := OpUnreserve
	if running {
		op = s.cfg.operationFor(l)
	}
	var on []slottable.HostID // where its VMs are saved: known when it runs
	if running {
		on = l.plan[l.cur].hosts
	}
	v := &victim{l: l, op: op, cost: s.preemptionCost(l, op, on)}
	switch op {
	case OpSuspend, OpMigrate:
		v.opLen, v.images = s.suspendTime(l, on), true
	case OpCancel, OpRequeue:
		v.opLen = s.cfg.Overheads.Cancel(l.Req.VMs)
	}
	if running {
		v.runStart, v.left = l.plan[l.cur].start, l.Remaining
	}
	return v
}

// holdHosts sets the hosts a running victim runs on, once.
func (v *victim) holdHosts() {
	if v.op != OpUnreserve && v.hosts == nil {
		v.hosts = hostsOf(v.l.plan[v.l.cur].hosts)
	}
}

// MayBePreemptedWithin reports whether lease l could have been preempted
// by a local lease starting lead from now, as the energy controller
// estimates it when deciding how many hosts to switch on: l is
// preemptable and either has not started or there is time to suspend it.
// It is an estimate over the lease alone (the candidate test proper,
// preemptionState, also looks at its plan).
func (s *Scheduler) MayBePreemptedWithin(l *Lease, lead time.Duration) bool {
	if !s.rule.Preemptable(l) {
		return false
	}
	if !l.Started() {
		return true
	}
	var on []slottable.HostID
	if l.entered && l.cur < len(l.plan) {
		on = l.plan[l.cur].hosts
	}
	return lead >= s.suspendTime(l, on)
}
