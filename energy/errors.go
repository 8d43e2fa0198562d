package energy

import (
	"errors"

	"github.com/bora-sched/bora/fielderr"
)

// Errors of package energy. Each is wrapped (with %w) by the error a
// function returns, so callers check them with errors.Is.
var (
	// ErrInvalidFuzzy is wrapped by the *fielderr.Error that System.Validate
	// and FuzzyConfig.Build return for a fuzzy system that cannot be used:
	// unordered or malformed sets, a gap in the coverage of an input, a
	// rule naming an unknown output, a rule table of the wrong shape.
	ErrInvalidFuzzy = errors.New("invalid fuzzy system")
	// ErrInvalidPowerModel is wrapped by the *fielderr.Error that
	// PowerModel.Validate (and so NewMeter) returns for a negative or
	// non-finite wattage or a negative boot or shutdown time.
	ErrInvalidPowerModel = errors.New("invalid power model")
	// ErrInvalidParams is wrapped by the *fielderr.Error that Params.Validate
	// (and so every policy constructor) returns for a waiting factor that
	// is not positive or a negative grace period.
	ErrInvalidParams = errors.New("invalid energy policy parameters")
	// ErrUnknownPolicy is returned by NewPolicy for a name that is not in
	// Policies.
	ErrUnknownPolicy = errors.New("unknown energy policy")
	// ErrUnknownHost is returned by the Meter's methods for a host it does
	// not meter.
	ErrUnknownHost = errors.New("unknown host")
	// ErrDuplicateHost is returned by NewMeter and Meter.AddHost for a
	// host named twice (or an empty name).
	ErrDuplicateHost = errors.New("duplicate or empty host name")
	// ErrUnknownState is returned for a power state that is none of off,
	// booting, on, shutting-down.
	ErrUnknownState = errors.New("unknown power state")
	// ErrIllegalTransition is returned by Meter.Set for a change of power
	// state other than off -> booting -> on -> shutting-down -> off.
	ErrIllegalTransition = errors.New("illegal power state transition")
	// ErrTimeBackwards is returned by the Meter's methods when now is
	// before the last change they recorded.
	ErrTimeBackwards = errors.New("time went backwards")
	// ErrInvalidLoad is returned by Meter.SetLoad for a busy fraction
	// outside [0, 1] (or NaN).
	ErrInvalidLoad = errors.New("busy fraction outside [0, 1]")
)

// fieldErr is a configuration value that is not acceptable: a
// *fielderr.Error whose Path is its path in the configuration form, e.g.
// "v_sets.MR.left", "rules.HR[2]", "boot_watts" or "alpha", wrapping the
// package sentinel (ErrInvalidFuzzy, ErrInvalidPowerModel or
// ErrInvalidParams).
func fieldErr(sentinel error, field, format string, args ...any) error {
	return fielderr.Wrap(sentinel, field, format, args...)
}
