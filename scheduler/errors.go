package scheduler

import "errors"

var (
	// ErrUnknownLease is returned by Cancel when no lease has the ID.
	ErrUnknownLease = errors.New("no such lease")
	// ErrLeaseOver is returned by Cancel when the lease has already ended.
	ErrLeaseOver = errors.New("lease has already ended")
	// ErrUnknownSetting is returned by Config.Set for a key it does not know.
	ErrUnknownSetting = errors.New("unknown setting")
)
