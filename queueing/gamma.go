package queueing

import (
	"math"

	"github.com/bora-sched/bora/fielderr"
)

// Gamma is a Gamma distribution by shape k and scale theta: mean
// k·theta, variance k·theta².
type Gamma struct {
	Shape, Scale float64
}

// FitGamma returns the Gamma distribution with the given mean and
// coefficient of variation cv (standard deviation over mean), by
// matching moments (docs/models.md §4): shape = 1/cv², scale = mean·cv².
// It returns an ErrInvalid error naming "mean" or "cv" unless both are
// finite and positive, or if the shape overflows.
func FitGamma(mean, cv float64) (Gamma, error) {
	if err := checkPositive("mean", mean); err != nil {
		return Gamma{}, err
	}
	if err := checkPositive("cv", cv); err != nil {
		return Gamma{}, err
	}
	g := Gamma{Shape: 1 / (cv * cv), Scale: mean * cv * cv}
	if math.IsInf(g.Shape, 0) || g.Scale == 0 {
		return Gamma{}, fielderr.Wrap(ErrInvalid, "cv", "%g is too small for a Gamma fit (shape 1/cv² overflows)", cv)
	}
	return g, nil
}

// Service is a service-time distribution given by its first two
// moments: Mean > 0 and the coefficient of variation CV >= 0. CV > 0 is
// the Gamma distribution FitGamma gives; CV = 0 is a deterministic
// service, the Gamma's limit as its shape grows without bound.
type Service struct {
	Mean, CV float64
}

func (s Service) check() error {
	if err := checkPositive("service.mean", s.Mean); err != nil {
		return err
	}
	if math.IsNaN(s.CV) || math.IsInf(s.CV, 0) || s.CV < 0 {
		return fielderr.Wrap(ErrInvalid, "service.cv", "must be a finite number >= 0, got %v", s.CV)
	}
	return nil
}

func checkPositive(path string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return fielderr.Wrap(ErrInvalid, path, "must be a finite number > 0, got %v", v)
	}
	return nil
}

func checkNonNegative(path string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fielderr.Wrap(ErrInvalid, path, "must be a finite number >= 0, got %v", v)
	}
	return nil
}
