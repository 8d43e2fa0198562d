package power

import "errors"

// Errors of the power drivers, besides drivers.ErrUnknownHost (a host
// Command has no HostInfo for, or an empty host name) and
// drivers.ErrUnsupported (Status without a status command).
var (
	// ErrCommand is wrapped by a *CommandError: a power command exited
	// with a non-zero status, could not start, or timed out.
	ErrCommand = errors.New("power command failed")
	// ErrTimeout is wrapped by a *CommandError for a command killed after
	// CommandConfig.Timeout.
	ErrTimeout = errors.New("power command timed out")
	// ErrBadStatus is returned by Status when the status command prints
	// something other than a power state.
	ErrBadStatus = errors.New("unrecognised power status")
)
