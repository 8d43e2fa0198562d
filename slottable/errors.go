package slottable

import "errors"

// The errors the table returns. Test for them with errors.Is: some are
// wrapped with details (ErrOverCapacity always is).
var (
	// ErrUnknownHost is returned by Add when the reservation names a host
	// that AddHost never created.
	ErrUnknownHost = errors.New("slottable: unknown host")

	// ErrUnknownReservation is returned by Remove and SetEnd when the ID is
	// not (or no longer) in the table.
	ErrUnknownReservation = errors.New("slottable: unknown reservation")

	// ErrBadInterval is returned by Add when Start is not before End, and by
	// SetEnd when the new end is not after the reservation's start.
	ErrBadInterval = errors.New("slottable: start not before end")

	// ErrBadResources is returned by AddHost and Add when a resource vector
	// does not have one entry per dimension (Dims) or has a negative entry.
	ErrBadResources = errors.New("slottable: bad resource vector")

	// ErrOverCapacity is returned by Add and by a lengthening SetEnd when
	// checking is on (SetChecking) and the change would put a host over its
	// capacity at some time, and by Check when some host is over capacity.
	// It is wrapped with the host, the time and the resource name.
	ErrOverCapacity = errors.New("slottable: over capacity")

	// ErrCorrupt is returned by Check when the table's internal structures
	// disagree with each other (a bug in this package).
	ErrCorrupt = errors.New("slottable: internal inconsistency")
)
