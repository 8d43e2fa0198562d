package fake

import "errors"

// Errors of the fake driver, besides the drivers package's sentinels
// (drivers.ErrUnknownHost, drivers.ErrHostDown, drivers.ErrNotSaved),
// which it returns as that package documents.
var (
	// ErrNoSuchVM is returned by Suspend and LiveMigrate for a VM that is
	// not on the host the call names.
	ErrNoSuchVM = errors.New("no such VM")
	// ErrWrongState is returned when a VM is in a state the operation
	// cannot start from (suspending a stopped VM, live-migrating a saved
	// one).
	ErrWrongState = errors.New("VM in the wrong state for the operation")
	// ErrChanged is returned when a VM of the operation crashed, exited or
	// vanished while the operation was in progress; nothing was applied.
	ErrChanged = errors.New("VM changed during the operation")
	// ErrInjected is wrapped by every failure a Fault injects.
	ErrInjected = errors.New("injected fault")
	// ErrInvalid is returned for arguments that do not fit together, such
	// as a from or to slice whose length differs from the VMs'.
	ErrInvalid = errors.New("invalid arguments")
	// ErrClosed is returned by operations on a closed Driver.
	ErrClosed = errors.New("driver closed")
)
