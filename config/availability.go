package config

import (
	"fmt"
	"math"
	"time"

	"github.com/bora-sched/bora/availability"
)

// Availability is the availability-aware admission of external leases
// (docs/models.md §4, "Availability"; package availability), combinable
// with any admission policy: it runs after the policy admits a request.
//
//	admission:
//	  availability:
//	    threshold: 0   # 0: off; in (0, 1]: the least probability that all of a lease's planned hosts stay up
//	    weight: 0.5    # w, the weight of a host's previous estimate
//	    tau: 24h       # the decay time of the previous estimate over the idle time before a use
//
// borad keeps every host's estimate (shown by `bora host show`) whether
// the check is on or not. The simulator has no host failures: there
// every estimate stays 1 and the check admits everything.
type Availability struct {
	Threshold float64       `yaml:"threshold"`
	Weight    float64       `yaml:"weight"`
	Tau       time.Duration `yaml:"tau"`
}

// DefaultAvailability is the check off, with availability.Defaults'
// estimator (w = 0.5, τ = 24 h).
func DefaultAvailability() Availability {
	d := availability.Defaults()
	return Availability{Weight: d.W, Tau: d.Tau}
}

// On reports whether leases are checked (a threshold above 0).
func (a Availability) On() bool { return a.Threshold > 0 }

// Params are the estimator's parameters.
func (a Availability) Params() availability.Params {
	return availability.Params{W: a.Weight, Tau: a.Tau}
}

// Validate checks the section; errors name the key under
// admission.availability.
func (a Availability) Validate() error {
	const at = "admission.availability."
	if math.IsNaN(a.Threshold) || a.Threshold < 0 || a.Threshold > 1 {
		return fieldErr(at+"threshold", fmt.Sprintf("must be 0 (off) or above 0 and at most 1, got %g", a.Threshold))
	}
	if math.IsNaN(a.Weight) || a.Weight < 0 || a.Weight > 1 {
		return fieldErr(at+"weight", fmt.Sprintf("must be between 0 and 1, got %g", a.Weight))
	}
	if a.Tau <= 0 {
		return fieldErr(at+"tau", fmt.Sprintf("must be positive, got %s", a.Tau))
	}
	return nil
}
