package scheduler

// Reason is why the scheduler said no to a lease, or did something to it.
// The values are stable: the API and `bora lease show` display them.
type Reason string

// The reasons.
const (
	ReasonInvalid          Reason = "invalid-request"     // the request failed validation
	ReasonTooLarge         Reason = "larger-than-cluster" // no placement could ever hold it
	ReasonNoCapacity       Reason = "no-capacity"         // does not fit in its interval, even with preemption
	ReasonNoPreemption     Reason = "preemption-disabled" // would fit only by preempting, and the policy is NOP
	ReasonDeadline         Reason = "deadline-infeasible" // no plan ends by its deadline, even moving accepted deadline leases (below)
	ReasonTooSoon          Reason = "inside-non-schedulable-interval"
	ReasonStartPassed      Reason = "start-in-the-past"    // an advance reservation whose start has passed
	ReasonSuspendTooLate   Reason = "preemption-too-slow"  // preempting would not finish before the start
	ReasonPreempted        Reason = "preempted"            // preempted by another lease (Detail names it)
	ReasonPreemptionVoid   Reason = "preemption-void"      // a preemption decided did not happen: the lease ended first
	ReasonDisplaced        Reason = "gave-way"             // a queued lease's reservation was taken for a lease that must end by its deadline
	ReasonGapEnded         Reason = "suspended-at-gap-end" // ran in a gap before a reservation, as planned
	ReasonCancelledByUser  Reason = "cancelled-by-user"    // cancelled through the API
	ReasonDeadlineMissed   Reason = "deadline-missed"      // resumed too late to end before the deadline
	ReasonEnactmentFailure Reason = "enactment-failed"     // the driver reported a failure
	// ReasonBootWaitTooLong: an immediate lease that would fit only once
	// hosts being switched on are on, later than
	// scheduler.immediate_boot_wait allows (bootwait.go).
	ReasonBootWaitTooLong Reason = "boot-wait-too-long"
	// ReasonWaitsForBoot is noted in the history of an immediate lease
	// that starts at the end of a boot, within
	// scheduler.immediate_boot_wait (bootwait.go).
	ReasonWaitsForBoot Reason = "waits-for-boot"
)

// The two cases of a deadline lease refused at submission (submit.go,
// docs/models.md §1), and what moving a deadline lease to make room notes.
//
// ReasonDeadline: it fits in its interval alone, but not together with
// the accepted deadline leases, however those that have not started move
// within their own intervals. ReasonDeadlineInterval: its interval cannot
// hold it at all: shorter than its duration, or full of reservations that
// cannot move even with every movable deadline lease out of it.
const (
	ReasonDeadlineInterval Reason = "deadline-interval-too-small"
	// ReasonMovedForDeadline is noted in the history of an accepted
	// deadline lease that had not started, planned again within its own
	// interval (still ending by its deadline) to make room for a new lease
	// (deadlinemove.go); the detail gives its old and new start.
	ReasonMovedForDeadline Reason = "moved-within-deadline"
)

// Reasons for admin operations that must fit like any other plan
// (adminroom.go), and for what a restart changed (repair.go, late.go).
const (
	ReasonOpNoRoom      Reason = "operation-does-not-fit"    // an admin operation refused: it would overbook a host (ErrNoRoom)
	ReasonMovedForAdmin Reason = "moved-for-admin-operation" // a queued lease's plan gave way to an admin operation
	// ReasonRestoreReplanned: a restore planned the lease again, as its
	// saved plan would have put a host over capacity (RestoreReplanning).
	ReasonRestoreReplanned Reason = "restore-replanned"
	// ReasonStartedLate: the lease's planned start fell while the daemon
	// was down; it starts late (CatchUp).
	ReasonStartedLate Reason = "started-late"
)

// Reasons for what an administrator or the driver did to a lease
// (admin.go).
const (
	ReasonAdminSuspend Reason = "suspended-by-admin" // held suspended until an admin resumes it
	ReasonAdminMigrate Reason = "migrated-by-admin"  // suspended to be resumed on other hosts
	ReasonHostDisabled Reason = "host-disabled"      // its reservation was on a host taken out of service
)

// Reasons for what the hosts really did, when it differs from the plan
// (power.go, bootlate.go, capacity.go, oplate.go).
const (
	// ReasonConsolidated is noted in the history of a queued lease whose
	// reservation on a host being emptied (Evacuate) was dropped to plan it
	// elsewhere; running leases moved off such a host are preempted (reason
	// preempted, the detail naming the consolidation).
	ReasonConsolidated Reason = "consolidated"
	// ReasonBootLate is noted in the history of a queued lease whose plan
	// was on a host that had not finished booting when the lease was to
	// begin there: it is planned again (DelayBoot).
	ReasonBootLate Reason = "host-boot-late"
	// ReasonBootFailed is noted in the history of a lease planned on a host
	// that failed to boot: a queued lease is planned again, an advance
	// reservation moved to other hosts at its start (BootFailed).
	ReasonBootFailed Reason = "host-boot-failed"
	// ReasonHostResized is noted in the history of a lease planned again
	// (or left over capacity) because its host's capacity shrank.
	ReasonHostResized Reason = "host-resized"
	// ReasonOperationLate is noted in the history of a lease whose
	// operation ran past its reservation, and of the leases planned after
	// it on the same hosts that were moved for it (OperationLate).
	ReasonOperationLate Reason = "operation-late"
)

// ReasonAdmissionLimit: an external lease refused by the admission stage
// (package admission, docs/models.md §4) before it reached the
// scheduler: the cluster already holds as many admitted, unfinished
// external leases as its policy allows. The detail says how many, the
// limit and the policy ("7 external leases admitted, limit 7 (pacp,
// D = 1,800 s)").
const ReasonAdmissionLimit Reason = "admission-limit"

// ReasonAvailability: an external lease refused by the
// availability-aware check (docs/models.md §4, "Availability") because
// the probability that all of the hosts it would run on stay up is below
// admission.availability.threshold. The detail names the hosts, the
// probability and the threshold ("hosts h3, h7 stay up with probability
// 0.62, threshold 0.80").
const ReasonAvailability Reason = "availability"
