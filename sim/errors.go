package sim

import "errors"

// ErrStopped is wrapped by the error RunContext returns when its context
// is done before the simulation is: the message says how far the run got
// (the simulated time reached, the leases done of all), and the error
// wraps the context's cause too (context.Canceled, or the cause given to
// context.WithCancelCause: bora simulate gives the signal).
var ErrStopped = errors.New("simulation stopped")
