package scheduler

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// SavedLease is a lease with everything the scheduler needs to carry on
// with it after a restart: its public fields and its plan, with the
// reservations each phase holds. It is what the daemon stores.
type SavedLease struct {
	Lease
	Plan           []SavedPhase             `json:"plan,omitempty"`
	Cur            int                      `json:"cur,omitempty"`
	Entered        bool                     `json:"entered,omitempty"`
	MigrateNext    bool                     `json:"migrate_next,omitempty"`
	PrevHost       map[slottable.HostID]int `json:"prev_host,omitempty"`
	After          uint8                    `json:"after,omitempty"`
	Saved          bool                     `json:"saved,omitempty"`
	Stopped        bool                     `json:"stopped,omitempty"`
	PreemptPending bool                     `json:"preempt_pending,omitempty"`
	Queued         bool                     `json:"queued,omitempty"`
	Hold           bool                     `json:"hold,omitempty"`
	Avoid          map[slottable.HostID]int `json:"avoid,omitempty"`
	// Pending is a preemption decided whose operation has not begun (to be
	// taken back if it never does); Promise the reservations held for a
	// deadline-bound lease's restart (deadline.go).
	Pending *PendingPreemption `json:"pending,omitempty"`
	Promise []SavedReservation `json:"promise,omitempty"`
}

// SavedPhase is one phase of a saved plan.
type SavedPhase struct {
	Kind         string             `json:"kind"`
	Start        time.Time          `json:"start"`
	End          time.Time          `json:"end"`
	Hosts        []slottable.HostID `json:"hosts"`
	Reservations []SavedReservation `json:"reservations,omitempty"`
}

// SavedReservation is one reservation a phase holds on a host.
type SavedReservation struct {
	Kind  slottable.Kind      `json:"kind,omitempty"` // promises only; a phase's kind says it
	Host  slottable.HostID    `json:"host"`
	Start time.Time           `json:"start"`
	End   time.Time           `json:"end"`
	Res   slottable.Resources `json:"res"`
}

// SavedState is the scheduler's own state beside its leases.
type SavedState struct {
	Now       time.Time `json:"now"`
	NextID    LeaseID   `json:"next_id"`
	Queue     []LeaseID `json:"queue"`
	Dirty     bool      `json:"dirty"`
	Decisions int       `json:"decisions"`
	Stats     Stats     `json:"stats"`
	// Power is the power cycle of every host not plainly on (powersnap.go).
	Power []SavedPower `json:"power,omitempty"`
}

// Save returns lease id in its saved form, or false when it is unknown.
func (s *Scheduler) Save(id LeaseID) (SavedLease, bool) {
	l := s.leases.get(id)
	if l == nil {
		return SavedLease{}, false
	}
	out := SavedLease{Lease: *l, Cur: l.cur, Entered: l.entered, MigrateNext: l.migrate,
		PrevHost: l.prevHost, After: uint8(l.after), Saved: l.saved, Stopped: l.stopped,
		PreemptPending: l.preemptPending, Queued: l.queued, Hold: l.hold, Avoid: l.avoid}
	out.Lease.plan = nil
	out.Lease.pending, out.Lease.promise = nil, nil
	if l.pending != nil {
		p := *l.pending
		out.Pending = &p
	}
	for _, rid := range l.promise {
		if r, ok := s.table.Get(rid); ok {
			out.Promise = append(out.Promise, SavedReservation{Kind: r.Kind, Host: r.Host, Start: r.Start, End: r.End, Res: r.Res})
		}
	}
	for i, p := range l.plan {
		sp := SavedPhase{Kind: p.kind.String(), Start: p.start, End: p.end, Hosts: p.hosts}
		if i >= l.cur {
			for _, rid := range p.res {
				if r, ok := s.table.Get(rid); ok {
					sp.Reservations = append(sp.Reservations, SavedReservation{Host: r.Host, Start: r.Start, End: r.End, Res: r.Res})
				}
			}
		}
		out.Plan = append(out.Plan, sp)
	}
	return out, true
}

// State returns the scheduler's own state for saving.
func (s *Scheduler) State() SavedState {
	st := s.stats
	st.Search = map[string]int{}
	for k, v := range s.stats.Search {
		st.Search[k] = v
	}
	return SavedState{Now: s.now, NextID: s.nextID, Queue: append([]LeaseID(nil), s.queue...),
		Dirty: s.dirty, Decisions: s.decisions, Stats: st, Power: s.savePower()}
}

// Restore builds a scheduler from saved state: the leases (in any order)
// are put back, their reservations added to table (which must hold the
// same hosts as when they were saved, and nothing else), and their
// pending wake-ups rebuilt. The next Advance carries on where the saved
// scheduler stopped. A saved state that breaks an invariant (a host over
// capacity, a reservation missing) is refused with ErrInconsistent;
// RestoreReplanning (repair.go) plans such a state again instead.
func Restore(cfg Config, table *slottable.Table, epoch time.Time, st SavedState, leases []SavedLease, log Logger) (*Scheduler, error) {
	s, err := New(cfg, table, epoch, log)
	if err != nil {
		return nil, err
	}
	sort.Slice(leases, func(i, j int) bool { return leases[i].ID < leases[j].ID })
	for i := range leases {
		l, err := s.restoreLease(&leases[i])
		if err != nil {
			return nil, err
		}
		s.addRestored(l)
	}
	if err := s.restorePower(st.Power); err != nil { // powersnap.go
		return nil, err
	}
	s.restoreState(st)
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInconsistent, err)
	}
	return s, nil
}

// restoreState puts back the scheduler's own state once its leases are in.
func (s *Scheduler) restoreState(st SavedState) {
	if st.NextID > s.nextID {
		s.nextID = st.NextID
	}
	for _, id := range st.Queue {
		if l := s.leases.get(id); l != nil && l.queued {
			s.queue = append(s.queue, id)
		}
	}
	s.now, s.dirty, s.decisions = st.Now, st.Dirty || len(s.queue) > 0, st.Decisions
	// Every wake-up restored is live: the heap is as compactWake leaves
	// it, and the first pushes after a restart do not compact it again.
	s.wakeLimit = 2 * len(s.wake)
	s.stats = st.Stats
	if s.stats.Search == nil {
		s.stats.Search = map[string]int{}
	}
}

// addRestored puts restored lease l among the scheduler's leases.
func (s *Scheduler) addRestored(l *Lease) {
	s.leases.set(l)
	s.ids = append(s.ids, l.ID)
	if l.ID >= s.nextID {
		s.nextID = l.ID + 1
	}
}

func (s *Scheduler) restoreLease(sl *SavedLease) (*Lease, error) {
	l := new(Lease)
	*l = sl.Lease
	l.cur, l.entered, l.migrate, l.prevHost = sl.Cur, sl.Entered, sl.MigrateNext, sl.PrevHost
	l.after, l.saved, l.stopped = afterKind(sl.After), sl.Saved, sl.Stopped
	l.preemptPending, l.queued, l.hold, l.avoid = sl.PreemptPending, sl.Queued, sl.Hold, sl.Avoid
	if l.Ops == nil {
		l.Ops = map[Operation]int{}
	}
	l.pending, l.promise = sl.Pending, nil
	for _, r := range sl.Promise {
		id, err := s.table.Add(slottable.Reservation{Lease: l.ID, Host: r.Host, Kind: r.Kind, Start: r.Start, End: r.End, Res: r.Res})
		if err != nil {
			return nil, fmt.Errorf("lease %d: restoring its promised restart on host %d: %w", l.ID, r.Host, err)
		}
		l.promise = append(l.promise, id)
	}
	if len(sl.Plan) > 0 && (l.cur < 0 || l.cur >= len(sl.Plan)) {
		return nil, fmt.Errorf("lease %d: saved plan position %d outside its %d phases", l.ID, l.cur, len(sl.Plan))
	}
	for i, sp := range sl.Plan {
		k, ok := phaseKindOf(sp.Kind)
		if !ok {
			return nil, fmt.Errorf("lease %d: unknown phase kind %q", l.ID, sp.Kind)
		}
		p := phase{kind: k, start: sp.Start, end: sp.End, hosts: sp.Hosts}
		if i >= l.cur {
			for _, r := range sp.Reservations {
				id, err := s.table.Add(slottable.Reservation{Lease: l.ID, Host: r.Host, Kind: k.slot(),
					Start: r.Start, End: r.End, Res: r.Res})
				if err != nil {
					return nil, fmt.Errorf("lease %d: restoring its %s reservation on host %d: %w", l.ID, sp.Kind, r.Host, err)
				}
				p.res = append(p.res, id)
			}
		}
		l.plan = append(l.plan, p)
	}
	if l.cur < len(l.plan) {
		p := l.plan[l.cur]
		at := p.start
		if l.entered {
			at = p.end
		}
		s.wake.Push(wakeup{at: at, lease: l.ID, gen: l.gen})
	}
	return l, nil
}

func phaseKindOf(name string) (phaseKind, bool) {
	for k := phPrepare; k <= phShutdown; k++ {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}
