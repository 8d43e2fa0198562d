package preempt

import "errors"

// Sentinel errors. Functions wrap them with %w and a detail; check them with
// errors.Is.
var (
	// ErrNoPreemption is returned by Choose for policy NOP, which never
	// preempts: the caller rejects (or queues) the request instead.
	ErrNoPreemption = errors.New("preempt: policy NOP never preempts")

	// ErrInfeasible is returned by Choose when there are no candidates, or
	// when even preempting every candidate does not let the request fit.
	ErrInfeasible = errors.New("preempt: request does not fit even with every candidate preempted")

	// ErrUnknownPolicy is returned by ParsePolicy for a name that is not a
	// policy, and by Choose for a Policy value other than the four defined.
	ErrUnknownPolicy = errors.New("preempt: unknown policy")

	// ErrInvalidCandidate is returned by Choose when a candidate has a
	// negative VM count or overhead, or two candidates share a lease id.
	ErrInvalidCandidate = errors.New("preempt: invalid candidate")
)
