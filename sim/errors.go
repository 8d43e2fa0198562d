package sim

import "errors"

// ErrStopped is wrapped by the error RunContext returns when its context
// is done before the simulation is: the message says how far the run got
// (the simulated time reached, the leases done of all), and the error
// wraps the context's cause too (context.Canceled, or the cause given to
// context.WithCancelCause: bora simulate gives the signal).
var ErrStopped = errors.New("simulation stopped")

// ErrStepBack is wrapped by the error Stepper.AdvanceTo returns when it is
// asked to go back in simulated time.
var ErrStepBack = errors.New("simulated time cannot go back")

// ErrNotOpen is wrapped by the error Stepper.Submit returns before any
// Stepper.AdvanceTo (no event is open to take the arrival).
var ErrNotOpen = errors.New("no event open: call AdvanceTo first")
