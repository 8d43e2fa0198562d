package availability

import (
	"fmt"
	"math"
	"time"
)

// Params are the estimator's weight w of the previous estimate and its
// decay time τ.
type Params struct {
	W   float64
	Tau time.Duration
}

// Defaults are w = 0.5 and τ = 24 h (docs/models.md §4).
func Defaults() Params { return Params{W: 0.5, Tau: 24 * time.Hour} }

// Validate reports a weight outside [0, 1] or a τ that is not positive,
// wrapping ErrInvalid.
func (p Params) Validate() error {
	if math.IsNaN(p.W) || p.W < 0 || p.W > 1 {
		return fmt.Errorf("%w: weight %v is not in [0, 1]", ErrInvalid, p.W)
	}
	if p.Tau <= 0 {
		return fmt.Errorf("%w: decay time %s is not positive", ErrInvalid, p.Tau)
	}
	return nil
}

// Update is the estimate after one period of use: prev is the estimate
// before it, idle the time since the host's previous use (its t), active
// and down the time the host was up and down during the period. A period
// with no time in it leaves prev unchanged. Negative times count as 0.
func (p Params) Update(prev float64, idle, active, down time.Duration) float64 {
	active, down, idle = max(active, 0), max(down, 0), max(idle, 0)
	if active+down == 0 {
		return prev
	}
	recent := float64(active) / float64(active+down)
	decay := math.Exp(-float64(idle) / float64(p.Tau))
	return p.W*prev*decay + (1-p.W)*recent
}

// Joint is the probability that every one of the hosts' estimates holds
// at once: their product, 1 for no host.
func Joint(estimates []float64) float64 {
	out := 1.0
	for _, a := range estimates {
		out *= a
	}
	return out
}
