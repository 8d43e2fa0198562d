package scheduler

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/internal/minheap"
	"github.com/bora-sched/bora/slottable"
)

// Scheduler decides when and where leases run. It owns a slot table and
// the leases; it never reads the wall clock: every call says what time it
// is, and the caller (the simulator or the daemon) enacts the Actions it
// returns. It is not safe for concurrent use: one loop owns it.
type Scheduler struct {
	cfg    Config
	table  *slottable.Table
	epoch  time.Time
	mapper Mapper
	rule   PreemptionRule // who may preempt whom (preemptrule.go)
	log    Logger

	leases leaseIndex
	ids    []LeaseID // every lease, in submission order
	nextID LeaseID
	queue  []LeaseID // best-effort leases waiting (queued, planned, suspended), in priority order
	wake   minheap.Heap[wakeup]
	// wakeLimit is the size of wake past which push drops its stale
	// wake-ups (compactWake).
	wakeLimit int
	out       []Action
	dirty     bool // the queue must be planned again
	// scratchMark is the freed history's mark (slottable.Table.FreedMark)
	// at the start of the last re-plan from scratch, where the leases'
	// Lease.scratch memos begin; fromScratch says that unplanQueue has
	// dropped plans since, so the next re-plan is one.
	scratchMark uint64
	fromScratch bool
	lazyN       int       // leases whose plans are lazy (lazyplan.go)
	lazySet     []bool    // by lease ID: its plan is lazy (isLazy)
	lazyList    []*Lease  // the leases deferQueue made lazy, in queue order
	lazyLive    []lazyRef // the lazy plans for lazyHosts, in no order
	eager       bool      // no lazy plans: unplanQueue (the tests' reference)
	amid        bool      // searches leave the lazy plans out (amidFor)
	amidUnsure  bool      // preemptRefusedAmid cannot follow the decision amid them
	refusedAmid int       // fixed leases preemptRefusedAmid refused (the tests)
	// exact says that every queued lease's plan is the one a re-plan
	// from scratch gives it, as of the table at the history mark
	// exactMark (exact.go); settle has the next pass keep those plans
	// (keepExact). settled counts the plans it kept, and noSettle turns
	// it off: for the tests.
	// edits counts the plans built or extended (build, appendPhase):
	// exactEdits is its value when the note was made.
	exact      bool
	exactMark  uint64
	edits      uint64
	exactEdits uint64
	settle     bool
	settleFrom time.Time // the fixed lease's plan, when settle follows its acceptance
	settleTo   time.Time
	settled    int
	noSettle   bool
	// moveTries, when not 0, is moveDeadlines's budget instead of
	// maxMoveTries; exhaustive has layMovers try the futile starts too
	// (futileFrom); moveLeft is what the last search left of its budget.
	// For the tests.
	moveTries  int
	exhaustive bool
	moveLeft   int
	// giveWayBuf is givingWayMayHelp's scratch space: by lease ID, the
	// queued leases that may give way (deadline.go); takeAlways has it
	// always answer true, and giveWaySpared counts the takes it spared.
	// For the tests.
	giveWayBuf    []bool
	takeAlways    bool
	giveWaySpared int
	// deadlineKept counts the plans keepDeadlinePlan kept, and
	// noDeadlineKeep turns it off: for the tests.
	deadlineKept   int
	noDeadlineKeep bool
	// optBuf and usedBuf are options' scratch space (plan.go).
	optBuf  []HostOption
	usedBuf slottable.Resources
	// spare is the memory of onCopy's last copy of the table, for its
	// next (Table.CloneReusing); nil while a copy is in use.
	spare *slottable.Table
	// keepSteps is keepable's room for the steps it returns.
	keepSteps [4]stepSpec
	// knownKeeps counts relabel's known cases; under CheckInvariants
	// every knownCheckEvery-th is checked (mustBeKnown), the first one
	// included.
	knownKeeps uint64
	// hostBufs are relabel's and samePlan's scratch lists of hosts
	// (keepplan.go), for plans wider than their buffers on the stack.
	hostBufs  [4][]slottable.HostID
	opsHosts  []slottable.HostID  // imageOps's list of a placement's hosts
	starveBuf starveRoom          // starvedFirst's lists (starve.go)
	rankBuf   []uint8             // passOrder's ranks of the queued leases
	resBuf    slottable.Resources // reserve's, which the table copies
	decisions int
	now       time.Time

	// Record, when set, receives every reservation as it ends or is cut
	// short: what really held each host.
	Record func(Interval)
	stats  Stats
	power  powerStates // hosts off, booting or shutting down (power.go)
}

// Stats counts the scheduler's decisions.
type Stats struct {
	Preemptions int            // preemption decisions that preempted something
	Search      map[string]int // preemption searches by method (exact, heuristic)
	Replans     int            // full passes over the queue
}

// Interval is a reservation as it was used.
type Interval struct {
	Lease      LeaseID
	Host       slottable.HostID
	Kind       string // prepare, vm, suspend, migrate, resume, stop, shutdown
	Start, End time.Time
	VMs        int
	CPU        int64 // total on the host
}

// New builds a scheduler over table, whose times are offsets from epoch.
func New(cfg Config, table *slottable.Table, epoch time.Time, log Logger) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = discard{}
	}
	table.SetChecking(cfg.CheckInvariants)
	table.TrackFreed(true) // for the leases' fit memos (find)
	return &Scheduler{
		cfg: cfg, table: table, epoch: epoch, mapper: mappers[cfg.Mapper], rule: OriginRule{},
		log:    log,
		nextID: 1,
		stats:  Stats{Search: map[string]int{}},
	}, nil
}

// Config is the configuration the scheduler runs with.
func (s *Scheduler) Config() Config { return s.cfg }

// Table is the scheduler's slot table (read it, do not change it).
func (s *Scheduler) Table() *slottable.Table { return s.table }

// Stats returns the decision counters.
func (s *Scheduler) Stats() Stats { return s.stats }

// Lease returns the lease with that ID, or nil.
func (s *Scheduler) Lease(id LeaseID) *Lease { return s.leases.get(id) }

// Leases returns every lease in submission order.
func (s *Scheduler) Leases() []*Lease {
	out := make([]*Lease, len(s.ids))
	for i, id := range s.ids {
		out[i] = s.leases.get(id)
	}
	return out
}

// QueueLen is how many best-effort leases wait.
func (s *Scheduler) QueueLen() int { return len(s.queue) }

// At converts an offset from the epoch into a time.
func (s *Scheduler) At(d time.Duration) time.Time { return s.epoch.Add(d) }

// NextEvent is the next time at which the scheduler has something to do
// (a reservation boundary or a wake-up tick); false when nothing is planned.
func (s *Scheduler) NextEvent() (time.Time, bool) {
	for len(s.wake) > 0 {
		w := s.wake[0]
		if l := s.leases.get(w.lease); l != nil && l.gen == w.gen {
			next := w.at
			if t, ok := s.nextTick(); ok && t.Before(next) {
				next = t
			}
			return next, true
		}
		s.wake.Pop()
	}
	return s.nextTick()
}

func (s *Scheduler) nextTick() (time.Time, bool) {
	if !s.dirty || s.cfg.WakeUp <= 0 {
		return time.Time{}, false
	}
	n := s.now.Sub(s.epoch)/s.cfg.WakeUp + 1
	return s.epoch.Add(n * s.cfg.WakeUp), true
}

func (s *Scheduler) onTick(now time.Time) bool {
	return s.cfg.WakeUp <= 0 || now.Sub(s.epoch)%s.cfg.WakeUp == 0
}

// Advance moves the scheduler to now: reservations that begin or end by
// now take effect, and the queue is planned again where capacity changed.
// It returns what must be enacted.
func (s *Scheduler) Advance(now time.Time) []Action {
	s.setNow(now)
	s.run(now)
	return s.flush()
}

func (s *Scheduler) setNow(now time.Time) {
	if now.After(s.now) {
		s.now = now
	}
}

func (s *Scheduler) flush() []Action {
	out := s.out
	s.out = nil
	return out
}

// run processes every wake-up due by now and re-plans when needed, until
// nothing more is due.
func (s *Scheduler) run(now time.Time) {
	if !s.onTick(now) {
		s.dropLazy() // no pass now to settle them (lazyplan.go)
	}
	s.expirePower(now) // power.go: boots that are over
	for {
		for len(s.wake) > 0 && !s.wake[0].at.After(now) {
			w := s.wake.Pop()
			if l := s.leases.get(w.lease); l != nil && l.gen == w.gen {
				s.step(l, now)
			}
		}
		if s.dirty && s.onTick(now) {
			s.dirty = false
			mark := s.table.FreedMark()
			scratch := s.fromScratch
			if scratch {
				s.scratchMark, s.fromScratch = mark, false
			}
			s.replan(now, scratch)
			// The leases planned by this replan made their memos after
			// mark, and their scratch memos after scratchMark (kept
			// while that history is not too long): the history before
			// helps no one any more.
			keep := mark
			if s.scratchMark > 0 && mark-s.scratchMark <= maxScratchHistory {
				keep = s.scratchMark
			}
			s.table.ForgetFreed(keep)
		}
		if len(s.wake) == 0 || s.wake[0].at.After(now) {
			break
		}
	}
	s.dropLazy() // not planned again here (onTick): as unplanQueue left them
	s.settle, s.settleFrom, s.settleTo = false, time.Time{}, time.Time{}
	if len(s.queue) == 0 {
		s.table.ForgetFreed(s.table.FreedMark()) // no memo to help
	}
	s.check()
}

// maxScratchHistory bounds the history of freed and raised usage kept for
// the scratch memos (entries since the last re-plan from scratch): past
// it, they no longer help (slottable.Table.Holds is false) and planning
// from scratch searches from the lease's latest memo.
const maxScratchHistory = 1 << 15

// scratchMemoReach is the oldest memo (in entries of history logged
// since) a lease planned from scratch searches from; an older one is
// dropped and the table searched from nothing. Such a search reads every
// entry since the memo and searches again wherever they freed room, which
// after that many entries is most hosts over most of the schedule, and
// it costs more than a search from nothing. Measured (README, "The
// energy controller's tick"): GESP on 512 hosts plans 55,521 leases in
// its 140 re-plans from scratch, three quarters of them from memos at
// least this old, and takes 4 % fewer instructions; in the ch.3 runs no
// memo is that old, while a reach of 4,096 costs a MOV run 5.9 % more
// instructions.
const scratchMemoReach = 1 << 14

// checkEvery is how many decisions pass between two full walks of the slot
// table by the invariant checker. In between, the table itself refuses any
// reservation that would over-commit a host (checking mode), so a broken
// invariant is caught at the decision that breaks it either way.
const checkEvery = 512

func (s *Scheduler) check() {
	if !s.cfg.CheckInvariants {
		return
	}
	s.decisions++
	if s.decisions%checkEvery == 0 {
		s.mustCheck()
	}
}

// Check walks the whole slot table and the leases' plans, and reports the
// first broken invariant: a host over capacity at some time, a lease whose
// reservations the table does not hold.
func (s *Scheduler) Check() error {
	if err := s.table.Check(); err != nil {
		return err
	}
	if err := s.checkPower(); err != nil { // power.go
		return err
	}
	for _, id := range s.ids {
		l := s.leases.get(id)
		for i := l.cur; i < len(l.plan); i++ {
			for _, r := range l.plan[i].res {
				if _, ok := s.table.Get(r); !ok {
					return fmt.Errorf("lease %d: phase %s holds reservation %d the table does not have", id, l.plan[i].kind, r)
				}
			}
		}
		if l.State.Terminal() && len(l.plan) > 0 {
			return fmt.Errorf("lease %d is %s but still has a plan", id, l.State)
		}
	}
	return nil
}

func (s *Scheduler) mustCheck() {
	if err := s.Check(); err != nil {
		panic(fmt.Sprintf("bora: scheduler invariant broken: %v", err))
	}
}

// step moves lease l through the phases of its plan that are due by now.
func (s *Scheduler) step(l *Lease, now time.Time) {
	for l.cur < len(l.plan) {
		p := &l.plan[l.cur]
		if !l.entered {
			if p.start.After(now) {
				s.push(l, p.start)
				return
			}
			l.entered = true
			s.enter(l, p, now)
		}
		if p.end.After(now) {
			s.push(l, p.end)
			return
		}
		s.leave(l, p)
		l.cur++
		l.entered = false
	}
	s.finishPlan(l, now)
}

func (s *Scheduler) push(l *Lease, at time.Time) {
	s.wake.Push(wakeup{at: at, lease: l.ID, gen: l.gen})
	if len(s.wake) >= max(s.wakeLimit, minWakeLimit) {
		s.compactWake()
	}
}

// minWakeLimit is the smallest size at which push compacts the wake-ups.
const minWakeLimit = 1024

// compactWake drops the stale wake-ups: those of a lease whose gen has
// moved on since (every re-plan that keeps a plan pushes its start again
// with a new gen; a contended ch.3 run pushed 366,135 and held up to
// 110,063, a few hundred of them live). A gen never comes back, so a
// stale wake-up would only ever be popped and passed over; the live ones
// come out in the same order (two that tie on time and lease are the
// same wake-up). The heap may grow to twice what is left before the next.
func (s *Scheduler) compactWake() {
	s.wake.Filter(func(w wakeup) bool {
		l := s.leases.get(w.lease)
		return l != nil && l.gen == w.gen
	})
	s.wakeLimit = 2 * len(s.wake)
}

// enter starts phase p of lease l: the lease changes state and the driver
// is told what to do.
func (s *Scheduler) enter(l *Lease, p *phase, now time.Time) {
	act := Action{At: now, Lease: l.ID, Hosts: p.hosts, Until: p.end}
	if l.queued {
		s.exactEnter(l)
		s.removeFromQueue(l.ID) // it has begun: it no longer waits
	}
	switch p.kind {
	case phPrepare:
		l.setState(now, Preparing, "", "")
		act.Op = ActStart
	case phRun:
		if l.FirstStart.IsZero() {
			l.FirstStart = now
		}
		if l.cur == 0 {
			s.emit(act, ActStart)
		}
		l.Hosts = p.hosts
		l.noteHosts(p.hosts)
		l.setState(now, Running, "", "")
		act.Op = ActRun
	case phSuspend:
		l.setState(now, Suspending, "", "")
		act.Op = ActSuspend
	case phMigrate:
		l.Migrations++
		l.setState(now, Migrating, "", "")
		act.Op = ActMigrate
		act.From = l.Hosts
	case phResume:
		l.setState(now, Resuming, "", "")
		act.Op = ActResume
	case phStop:
		act.Op = ActStop
		l.stopped = true
	case phShutdown:
		act.Op = ActShutdown
	}
	s.out = append(s.out, act)
}

func (s *Scheduler) emit(a Action, op ActionOp) {
	a.Op = op
	s.out = append(s.out, a)
}

// leave ends phase p: what it held is recorded and released.
func (s *Scheduler) leave(l *Lease, p *phase) {
	switch p.kind {
	case phRun:
		l.Remaining -= p.end.Sub(p.start)
		if l.Remaining < 0 {
			l.Remaining = 0
		}
	case phResume:
		l.saved, l.migrate, l.avoid = false, false, nil
	}
	s.release(l, p)
}

// release records what phase p used and removes its reservations.
func (s *Scheduler) release(l *Lease, p *phase) {
	for _, id := range p.res {
		r, ok := s.table.Get(id)
		if !ok {
			continue
		}
		if s.Record != nil && r.End.After(r.Start) {
			vms := 0
			if l.Req.CPU > 0 {
				vms = int(r.Res[slottable.CPU] / l.Req.CPU)
			}
			s.Record(Interval{Lease: l.ID, Host: r.Host, Kind: p.kind.String(),
				Start: r.Start, End: r.End, VMs: vms, CPU: r.Res[slottable.CPU]})
		}
		if err := s.table.Remove(id); err != nil {
			s.log.LeaseError(l.ID, "removing reservation", err)
		}
	}
	p.res = nil
}

// finishPlan is called when lease l has gone through its whole plan.
func (s *Scheduler) finishPlan(l *Lease, now time.Time) {
	l.plan, l.cur, l.entered = nil, 0, false
	l.gen++
	if (l.after == afterCancel || l.after == afterRequeue) && !l.stopped {
		s.emit(Action{At: now, Lease: l.ID, Hosts: l.Hosts}, ActStop) // stopping takes no time
	}
	l.stopped = false
	switch l.after {
	case afterDone:
		l.Remaining = 0
		l.setState(now, Done, "", "")
		if len(s.queue) > 0 {
			s.dirty = true // its hosts are free: queued leases may start
		}
		s.emit(Action{At: now, Lease: l.ID, Hosts: l.Hosts}, ActDone)
	case afterCancel:
		l.setState(now, Cancelled, ReasonPreempted, l.Detail)
	case afterRequeue:
		l.Remaining = l.Req.Duration
		l.after = afterDone
		l.setState(now, Queued, ReasonPreempted, l.Detail)
		s.requeueFront(l)
	case afterSuspend:
		l.saved, l.after = true, afterDone
		if l.hold {
			l.preemptPending = false
			l.setState(now, Suspended, ReasonAdminSuspend, "")
			break
		}
		if l.Reason == ReasonAdminMigrate && !l.preemptPending {
			l.setState(now, Suspended, ReasonAdminMigrate, "")
		} else if l.Reason == ReasonPreempted && l.preemptPending {
			l.setState(now, Suspended, ReasonPreempted, l.Detail)
		} else {
			l.setState(now, Suspended, ReasonGapEnded, "planned: its gap was shorter than its remaining time")
		}
		l.preemptPending = false
		s.requeueFront(l)
	}
}

// requeueFront puts a preempted lease at the head of the queue, after the
// other preempted leases already there.
func (s *Scheduler) requeueFront(l *Lease) {
	s.removeFromQueue(l.ID)
	i := 0
	for i < len(s.queue) && s.leases.get(s.queue[i]).Preemptions > 0 {
		i++
	}
	s.queue = append(s.queue, 0)
	copy(s.queue[i+1:], s.queue[i:])
	s.queue[i] = l.ID
	l.queued = true
	s.dirty = true
}

func (s *Scheduler) removeFromQueue(id LeaseID) {
	for i, q := range s.queue {
		if q == id {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			break
		}
	}
	if l := s.leases.get(id); l != nil {
		l.queued = false
	}
}

func (l *Lease) noteHosts(hosts []slottable.HostID) {
	for _, h := range hosts {
		i := sort.Search(len(l.AllHosts), func(i int) bool { return l.AllHosts[i] >= h })
		if i == len(l.AllHosts) || l.AllHosts[i] != h {
			l.AllHosts = append(l.AllHosts, 0)
			copy(l.AllHosts[i+1:], l.AllHosts[i:])
			l.AllHosts[i] = h
		}
	}
}

type wakeup struct {
	at    time.Time
	lease LeaseID
	gen   uint64
}

// Before orders wake-ups by time, then lease ID.
func (a wakeup) Before(b wakeup) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.lease < b.lease
}
