package scheduler

import (
	"time"

	"github.com/bora-sched/bora/slottable"
)

// LeaseID names a lease; the scheduler assigns them from 1 upwards.
type LeaseID = uint64

// State is where a lease is in its life (docs/models.md §1).
type State string

// The lease states.
const (
	Pending    State = "pending"    // submitted, not yet decided
	Rejected   State = "rejected"   // refused; Reason says why
	Scheduled  State = "scheduled"  // holds a reservation that starts later
	Queued     State = "queued"     // waiting in the best-effort queue without a reservation
	Preparing  State = "preparing"  // its VMs are being started
	Running    State = "running"    // its VMs run
	Suspending State = "suspending" // its VMs are paused and their memory saved
	Suspended  State = "suspended"  // saved; waiting in the queue to resume
	Resuming   State = "resuming"   // memory images are read back
	Migrating  State = "migrating"  // memory images are copied to other hosts
	Done       State = "done"       // ran its full (real) duration
	Cancelled  State = "cancelled"  // stopped by a user or by preemption
	Failed     State = "failed"     // an enactment failure ended it
)

// Terminal reports whether a lease in state s will never change again.
func (s State) Terminal() bool {
	return s == Rejected || s == Done || s == Cancelled || s == Failed
}

// Operation is what preemption does to a lease.
type Operation string

// The preemption operations.
const (
	OpCancel    Operation = "cancel"    // VMs stopped, lease cancelled
	OpRequeue   Operation = "requeue"   // VMs stopped, lease queued again from scratch
	OpSuspend   Operation = "suspend"   // suspended, re-queued, resumed later anywhere
	OpMigrate   Operation = "migrate"   // suspended and resumed on other hosts before its deadline
	OpUnreserve Operation = "unreserve" // not started yet: its reservation is dropped and it is planned again
)

// Event is one entry of a lease's history.
type Event struct {
	At     time.Time
	State  State
	Reason Reason // why, for rejections, preemptions and failures
	Detail string // more about the reason (e.g. the preempting lease)
}

// Lease is a request the scheduler has taken in, with its whole life.
type Lease struct {
	ID      LeaseID
	Req     Request
	State   State
	History []Event
	// Reason is the last reason the lease was given (rejection, preemption).
	Reason Reason
	Detail string

	Submitted time.Time
	Ready     time.Time     // earliest start
	Deadline  time.Time     // zero when none
	Remaining time.Duration // requested time still to run (what the planner knows)

	FirstStart time.Time // zero until it first starts running
	End        time.Time // when it reached a terminal state
	Hosts      []slottable.HostID
	// AllHosts is every host the lease ever ran on, ascending.
	AllHosts []slottable.HostID
	// Preemptions, Overhead and Ops count the preemptions the lease
	// underwent. One is counted when it is decided; if its operation never
	// happens (the lease is preempted again, earlier, before it begins, or
	// ends on its own or is cancelled first: see Preempting) it is taken
	// back.
	Preemptions int
	Migrations  int
	// DeadlineMissed is set when a plan of the lease ends after its deadline.
	DeadlineMissed bool
	Overhead       time.Duration // total preemption overhead h(L) charged to it
	Ops            map[Operation]int

	plan     []phase             // what is reserved for it, in time order
	cur      int                 // index of the current (or next) phase
	per      slottable.Resources // Per's answer, made once
	entered  bool                // whether plan[cur] has begun
	gen      uint64              // bumped when the plan changes, to drop stale wake-ups
	migrate  bool                // its next resumption copies memory images
	prevHost map[slottable.HostID]int
	after    afterKind // what happens when the plan is over
	saved    bool      // its memory images are saved: it resumes rather than starts
	stopped  bool      // its stop phase has begun (the driver was told)
	// preemptPending is set while a preemption's operation is planned.
	preemptPending bool
	queued         bool                     // it is in the best-effort queue
	hold           bool                     // suspended by an admin: stays out of the queue until resumed
	avoid          map[slottable.HostID]int // migrated by an admin: resume elsewhere if possible
	// pending is the last preemption decided while the lease ran, kept to
	// be taken back if its operation never happens (pendingLive).
	pending *PendingPreemption
	// promise holds, from its preemption until the queue plans it again,
	// the reservations of a deadline-bound lease's restart that ends by
	// its deadline (deadline.go); they are not part of its plan.
	promise []slottable.ResID
	// fit remembers its last earliest-fit search, so that planning it again
	// searches only where capacity was freed since (slottable.FitMemo).
	fit slottable.FitMemo
	// scratch is fit as the last re-plan from scratch (unplanQueue, then
	// replanPass) left it. At the next one, the reservations of the leases
	// behind it, which were not in the table then either, free nothing
	// relative to it, while fit, kept since by keepPlan with them in the
	// table, would search where they were (fromScratch: unplanQueue
	// dropped its plan; replanPass plans it from scratch).
	scratch     slottable.FitMemo
	fromScratch bool
	// bound is what lets replanPass keep its plan when deferQueue left it
	// in the table, lazy (lazyplan.go).
	bound bound
	// kept is the answer (fit.Since) keepPlan last kept the plan on, and
	// keptGen the plan's gen then: while both hold, the mapper's hosts
	// for that answer are the plan's (keepplan.go).
	kept, keptGen uint64
	// keptSteps are the steps (the first keptN) its plan was kept with.
	keptSteps [4]stepSpec
	keptN     uint8
}

// PendingPreemption is a preemption decided for a running lease whose
// operation begins later: its run has been cut at At.
type PendingPreemption struct {
	Op   Operation
	At   time.Time     // when its operation begins
	Cost time.Duration // h(L), as charged to the lease
	// The lease's Reason and Detail before the decision, given back if the
	// preemption never happens.
	PrevReason Reason
	PrevDetail string
}

// Preempting returns the preemption decided for the lease whose operation
// (suspend, migrate or stop) is planned but has not begun yet, if any.
func (l *Lease) Preempting() (PendingPreemption, bool) {
	if !l.pendingLive() {
		return PendingPreemption{}, false
	}
	return *l.pending, true
}

// afterKind is what happens to a lease when its plan runs out.
type afterKind uint8

const (
	afterDone    afterKind = iota // it ran its time: done
	afterSuspend                  // suspended: back to the queue
	afterCancel                   // stopped by preemption: cancelled
	afterRequeue                  // stopped by preemption: queued again from scratch
)

// Per is the resources one VM of the lease needs. It is made once (each
// query asked for a new one: a seventh of a ch.3 run's allocations) and
// shared: the caller must not change it.
func (l *Lease) Per() slottable.Resources {
	if p := l.per; len(p) == 2 && p[0] == l.Req.CPU && p[1] == l.Req.Memory {
		return p
	}
	l.per = slottable.Resources{l.Req.CPU, l.Req.Memory}
	return l.per
}

func (l *Lease) mems() []int64 { return memories(l.Req.VMs, l.Req.Memory) }

func (l *Lease) setState(at time.Time, s State, r Reason, detail string) {
	l.State = s
	if r != "" {
		l.Reason, l.Detail = r, detail
	}
	l.History = append(l.History, Event{At: at, State: s, Reason: r, Detail: detail})
	if s.Terminal() {
		l.End = at
	}
}

// Started reports whether the lease has begun (its VMs exist).
func (l *Lease) Started() bool { return !l.FirstStart.IsZero() || l.State == Preparing }

// phase is one reserved step of a lease's plan: its VMs (or an operation on
// them) over [start, end) on hosts.
type phase struct {
	kind  phaseKind
	start time.Time
	end   time.Time
	hosts []slottable.HostID // one per VM
	res   []slottable.ResID  // one per distinct host
}

type phaseKind uint8

const (
	phPrepare  phaseKind = iota // starting the VMs (enactment overhead)
	phRun                       // the VMs compute
	phSuspend                   // pause and save
	phMigrate                   // copy images to the new hosts
	phResume                    // restore and unpause
	phStop                      // stop the VMs (cancel)
	phShutdown                  // orderly shutdown after the run
)

func (k phaseKind) slot() slottable.Kind {
	switch k {
	case phSuspend:
		return slottable.KindSuspend
	case phMigrate:
		return slottable.KindMigrate
	case phResume:
		return slottable.KindResume
	case phStop, phShutdown:
		return slottable.KindShutdown
	}
	return slottable.KindVM
}

func (k phaseKind) String() string {
	return [...]string{"prepare", "vm", "suspend", "migrate", "resume", "stop", "shutdown"}[k]
}
