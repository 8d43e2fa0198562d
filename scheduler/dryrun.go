package scheduler

import (
	"maps"
	"slices"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// A dry run (docs/models.md §4, "Availability") answers "where and when
// would this request run if it were submitted now?" without changing
// anything: the request is submitted to a deep copy of the scheduler
// (Clone), whose table, leases, queue, wake-ups and power states are its
// own, and the copy is dropped. Submit on the copy decides exactly as
// Submit on the original would: the copy holds the same reservations
// under the same IDs and the same wake-ups in the same order; only the
// leases' fit memos start empty, and a memo never changes an answer
// (slottable.EarliestFitMemo), so the copy searches in full.

// DryRun is what Submit would decide for a request at a time.
type DryRun struct {
	// ID is the ID the lease would get.
	ID LeaseID
	// State is the state Submit would leave the lease in: Rejected (with
	// Reason and Detail), Queued (a best-effort lease with no plan yet),
	// or a planned state (Scheduled, Preparing, Running).
	State  State
	Reason Reason
	Detail string
	// Start and End are the first phase's start and the last phase's end
	// of its plan (zero without a plan); Hosts the hosts of its first
	// phase (sorted, distinct): where it starts.
	Start, End time.Time
	Hosts      []slottable.HostID
}

// Planned reports whether the dry run found a plan for the lease.
func (r DryRun) Planned() bool { return !r.Start.IsZero() }

// DryRun returns what Submit(now, req) would decide, changing nothing in
// s. Now earlier than the scheduler's own time counts as its time, as in
// Submit.
func (s *Scheduler) DryRun(now time.Time, req Request) DryRun {
	c := s.Clone()
	l, _ := c.Submit(now, req)
	out := DryRun{ID: l.ID, State: l.State, Reason: l.Reason, Detail: l.Detail}
	plan := l.Plan()
	if len(plan) == 0 {
		return out
	}
	out.Start, out.End = plan[0].Start, plan[len(plan)-1].End
	out.Hosts = slices.Compact(slices.Sorted(slices.Values(plan[0].Hosts)))
	return out
}

// Clone returns a deep copy of the scheduler: what either does afterwards
// does not affect the other. The copy logs nothing and records no
// intervals (Record is nil).
func (s *Scheduler) Clone() *Scheduler {
	c := *s // every value field, a field added later too; then the shared ones
	c.table, c.log, c.Record = s.table.Clone(), discard{}, nil
	c.leases = s.leases.clone()
	c.ids, c.queue, c.wake, c.out = slices.Clone(s.ids), slices.Clone(s.queue), slices.Clone(s.wake), slices.Clone(s.out)
	c.stats.Search = maps.Clone(s.stats.Search)
	c.power = s.power.clone()
	// Scratch space and the lazy leases (none between calls) are the
	// copy's own.
	c.lazySet, c.lazyList, c.lazyLive, c.optBuf, c.usedBuf, c.spare = nil, nil, nil, nil, nil, nil
	c.opsHosts, c.resBuf, c.hostBufs, c.starveBuf, c.rankBuf = nil, nil, [4][]slottable.HostID{}, starveRoom{}, nil
	// The note on the plans is about the original's table history.
	c.exact, c.settle = false, false
	return &c
}

// clone is a deep copy of the lease, without its fit memos (a memo is
// tied to its table's history: one of the original's never holds on the
// copy's table).
func (l *Lease) clone() *Lease {
	c := *l
	c.History = slices.Clone(l.History)
	c.Hosts = slices.Clone(l.Hosts)
	c.AllHosts = slices.Clone(l.AllHosts)
	c.Ops = maps.Clone(l.Ops)
	c.plan = make([]phase, len(l.plan))
	for i, p := range l.plan {
		p.hosts = slices.Clone(p.hosts)
		p.res = slices.Clone(p.res)
		c.plan[i] = p
	}
	if l.plan == nil {
		c.plan = nil
	}
	c.prevHost = maps.Clone(l.prevHost)
	c.avoid = maps.Clone(l.avoid)
	if l.pending != nil {
		p := *l.pending
		c.pending = &p
	}
	c.promise = slices.Clone(l.promise)
	c.fit, c.scratch = slottable.FitMemo{}, slottable.FitMemo{}
	c.kept, c.keptGen = 0, 0
	return &c
}

// clone is a deep copy of the power bookkeeping.
func (p powerStates) clone() powerStates {
	c := p
	if p.hosts != nil {
		c.hosts = make(map[slottable.HostID]*hostPower, len(p.hosts))
		for h, hp := range p.hosts {
			v := *hp
			c.hosts[h] = &v
		}
	}
	c.pending = slices.Clone(p.pending)
	c.evac = maps.Clone(p.evac)
	return c
}
