package scheduler

import (
	"time"

	"github.com/bora-sched/bora/slottable"
)

// PlanPhase is one phase of a lease's plan, as callers see it.
type PlanPhase struct {
	Kind       string // prepare, vm, suspend, migrate, resume, stop, shutdown
	Start, End time.Time
	Hosts      []slottable.HostID // one per VM
	Begun      bool               // the lease is in this phase now
}

// Plan returns what is still reserved for the lease, the current phase
// first.
func (l *Lease) Plan() []PlanPhase {
	var out []PlanPhase
	for i := l.cur; i < len(l.plan); i++ {
		p := l.plan[i]
		out = append(out, PlanPhase{Kind: p.kind.String(), Start: p.start, End: p.end,
			Hosts: p.hosts, Begun: i == l.cur && l.entered})
	}
	return out
}

// HostsInUse calls f with the hosts of every lease's phase in progress
// (one per VM): the hosts that have some lease's VMs on them now. It is
// Leases and Current without copying the lease list.
func (s *Scheduler) HostsInUse(f func(hosts []slottable.HostID)) {
	for _, id := range s.ids {
		if l := s.leases.get(id); l != nil && l.cur < len(l.plan) && l.entered {
			f(l.plan[l.cur].hosts)
		}
	}
}

// Current is the phase the lease is in now, if it is in one.
func (l *Lease) Current() (PlanPhase, bool) {
	if l.cur >= len(l.plan) || !l.entered {
		return PlanPhase{}, false
	}
	p := l.plan[l.cur]
	return PlanPhase{Kind: p.kind.String(), Start: p.start, End: p.end, Hosts: p.hosts, Begun: true}, true
}

// HasSavedImages reports whether the lease's memory images are saved (it
// resumes rather than starts).
func (l *Lease) HasSavedImages() bool { return l.saved }

// Held reports whether an administrator holds the lease suspended.
func (l *Lease) Held() bool { return l.hold }

// Revision identifies a lease's state: it changes whenever anything the
// scheduler saves of the lease (Save) does, so a caller that persists
// leases re-encodes only those whose revision moved. Compare with ==.
type Revision struct {
	gen               uint64
	history, cur      int
	preemptions       int
	remaining         time.Duration
	entered, queued   bool
	hold, missed      bool
	saved, stopped    bool
	pending, migrateN bool
	preempting        *PendingPreemption
	promise           int
}

// Revision returns the lease's current revision.
func (l *Lease) Revision() Revision {
	return Revision{gen: l.gen, history: len(l.History), cur: l.cur, preemptions: l.Preemptions,
		remaining: l.Remaining, entered: l.entered, queued: l.queued, hold: l.hold, missed: l.DeadlineMissed,
		saved: l.saved, stopped: l.stopped, pending: l.preemptPending, migrateN: l.migrate,
		preempting: l.pending, promise: len(l.promise)}
}
