package availability

import "errors"

// ErrInvalid is returned by Params.Validate and NewTracker for a weight
// outside [0, 1] or a non-positive τ.
var ErrInvalid = errors.New("invalid availability parameters")
