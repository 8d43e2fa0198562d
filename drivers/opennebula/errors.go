package opennebula

import (
	"errors"

	"github.com/bora-sched/bora/drivers/opennebula/onecfg"
)

// Errors the driver returns (wrapped, with the lease, VM and host in the
// message). It also returns drivers.ErrUnknownHost, drivers.ErrNotSaved
// and drivers.ErrHostDown, and passes OpenNebula's own errors through
// wrapped (errors.Is(err, oca.ErrAction) and the like work).
var (
	// ErrConfig is returned by New and Config.Validate for a
	// configuration that cannot work; the *fielderr.Error names the
	// field (onecfg.ErrConfig).
	ErrConfig = onecfg.ErrConfig
	// ErrLogin is returned by New when oned does not accept the
	// credentials or cannot be reached.
	ErrLogin = errors.New("opennebula: cannot log in to oned")
	// ErrNotAdopted is returned by operations on a VM{Lease, Index} no
	// OpenNebula VM was adopted for (see Adopt).
	ErrNotAdopted = errors.New("opennebula: no OpenNebula VM adopted for this lease VM")
	// ErrAlreadyAdopted is returned by Adopt when a VM or the lease is
	// already mapped differently.
	ErrAlreadyAdopted = errors.New("opennebula: VM or lease already adopted")
	// ErrWrongState is returned when a VM is in a state the operation
	// cannot start from (e.g. Start of a SUSPENDED VM).
	ErrWrongState = errors.New("opennebula: VM in the wrong state")
	// ErrOperationFailed is returned when OpenNebula reports that the
	// operation failed: the VM went to a …_FAILURE state or got a new
	// USER_TEMPLATE/ERROR; the message carries OpenNebula's error text.
	ErrOperationFailed = errors.New("opennebula: operation failed")
	// ErrTimeout is returned when an operation did not finish within
	// OpTimeout.
	ErrTimeout = errors.New("opennebula: operation timed out")
	// ErrBadLeaseAttr is the Err of a PendingLease whose BORA_LEASE
	// attribute does not parse or does not agree with its group.
	ErrBadLeaseAttr = errors.New("opennebula: bad BORA_LEASE attribute")
	// ErrClosed is returned by calls after Close.
	ErrClosed = errors.New("opennebula: driver closed")
)
