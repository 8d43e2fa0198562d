package scheduler

import "errors"

var (
	// ErrUnknownLease is returned by Cancel when no lease has the ID.
	ErrUnknownLease = errors.New("no such lease")
	// ErrLeaseOver is returned by Cancel when the lease has already ended.
	ErrLeaseOver = errors.New("lease has already ended")
)

// ErrNoRoom is returned by AdminSuspend and AdminMigrate when the
// operation's reservation would put a host over capacity at some time
// (another lease that cannot move holds it): the operation is refused and
// nothing changes. The message names the host, the lease in the way and
// the reason ReasonOpNoRoom.
var ErrNoRoom = errors.New("the operation does not fit: a host would be over capacity")

// ErrInconsistent is returned by Restore when the saved state breaks an
// invariant of the scheduler (Check): a host over capacity at some time, a
// plan holding a reservation the table lacks. It wraps the broken
// invariant's error (slottable.ErrOverCapacity for a host over capacity).
var ErrInconsistent = errors.New("restored state is inconsistent")
