package scheduler

import "errors"

// The scheduler's sentinel errors. Every error a method returns wraps one
// of these (or a slottable or preempt sentinel, where the method says so);
// check them with errors.Is.
var (
	// ErrUnknownLease is returned by Cancel and the admin operations when
	// no lease has the ID.
	ErrUnknownLease = errors.New("no such lease")
	// ErrLeaseOver is returned by Cancel and the admin operations when the
	// lease has already ended.
	ErrLeaseOver = errors.New("lease has already ended")
	// ErrNotRunning is returned by AdminSuspend and AdminMigrate for a
	// lease that is not running (it is preparing, moving, queued or over),
	// and by AdminResume for one that is not held suspended.
	ErrNotRunning = errors.New("lease is not in a state that allows this")
	// ErrNoRoom is returned by AdminSuspend and AdminMigrate when the
	// operation's reservation would put a host over capacity at some time
	// (another lease that cannot move holds it): the operation is refused
	// and nothing changes. The message names the host, the lease in the
	// way and the reason ReasonOpNoRoom.
	ErrNoRoom = errors.New("the operation does not fit: a host would be over capacity")
	// ErrNoOperation is returned by OperationLate for a lease that is not
	// in the middle of an operation (it runs, waits or is over).
	ErrNoOperation = errors.New("lease is not in the middle of an operation")
	// ErrInconsistent is returned by Restore when the saved state breaks
	// an invariant of the scheduler (Check): a host over capacity at some
	// time, a plan holding a reservation the table lacks. It wraps the
	// broken invariant's error (slottable.ErrOverCapacity for a host over
	// capacity).
	ErrInconsistent = errors.New("restored state is inconsistent")
)

// Errors of power management and host changes (power.go, capacity.go).
var (
	// ErrUnknownHost is returned by the power methods and SetHostCapacity
	// for a host the slot table does not have.
	ErrUnknownHost = errors.New("no such host")
	// ErrHostBusy is returned by PowerOff and MarkOff for a host that holds
	// reservations from now on.
	ErrHostBusy = errors.New("host holds reservations from now on")
	// ErrPowerTransition is returned by PowerOff for a host being switched
	// on (booting, or with a boot planned), and by Evacuate for a host that
	// is not on.
	ErrPowerTransition = errors.New("host is not in a power state that allows this")
	// ErrNotEvacuable is returned by Evacuate for a host holding a lease
	// that cannot be moved: a local or non-preemptable lease, a fixed lease
	// that has not begun, or one preparing, resuming or migrating there.
	ErrNotEvacuable = errors.New("host holds leases that cannot be moved")
	// ErrHostOvercommitted is returned by SetHostCapacity when leases that
	// cannot move (begun, or fixed with nowhere else to go) hold more than
	// the host's new capacity.
	ErrHostOvercommitted = errors.New("host holds more than its new capacity")
)
