package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/fielderr"
)

// Admission is the admission stage of external leases (docs/models.md
// §4, package admission), for bora simulate and borad alike:
//
//	admission:
//	  policy: ""            # "" (none: as accept-all, no admission metrics) | accept-all | one-at-a-time | rate | pacp
//	  threshold: 0s         # D; 0 derives it: (low_share*low_ratio + (1-low_share)*high_ratio) x mean external run time
//	  low_share: 0.5        # share of low-urgency external requests
//	  low_ratio: 4          # deadline ratio of low-urgency requests
//	  high_ratio: 2         # and of high-urgency ones
//	  max_k: 1000           # cap on the limit of rate and pacp
//	  window: 24h           # the estimator's sliding window
//	  warmup: 1h            # history the rates need before the limit applies
//	  min_samples: 20       # ends a service time's mean and cv need
//	  recompute_share: 0.05 # also recompute when the window has moved by this share
//	  schedule: "*/10 * * * *" # the cron of the recomputation (UTC); "": by recompute_share only
//	  availability: {threshold: 0, weight: 0.5, tau: 24h} # availability-aware check (availability.go)
type Admission struct {
	Policy         string        `yaml:"policy" bora:"lower"`
	Threshold      time.Duration `yaml:"threshold"`
	LowShare       float64       `yaml:"low_share"`
	LowRatio       float64       `yaml:"low_ratio"`
	HighRatio      float64       `yaml:"high_ratio"`
	MaxK           int           `yaml:"max_k"`
	Window         time.Duration `yaml:"window"`
	Warmup         time.Duration `yaml:"warmup"`
	MinSamples     int           `yaml:"min_samples"`
	RecomputeShare float64       `yaml:"recompute_share"`
	Schedule       string        `yaml:"schedule"`
	// Availability is the availability-aware check (availability.go).
	Availability Availability `yaml:"availability"`
}

// DefaultAdmission is no admission stage (every external lease goes to
// the scheduler, as accept-all admits it), with admission.DefaultConfig's
// parameters ready for a policy and a recomputation every 10 minutes.
func DefaultAdmission() Admission {
	d := admission.DefaultConfig()
	return Admission{Threshold: d.Threshold, LowShare: d.LowShare, LowRatio: d.LowRatio, HighRatio: d.HighRatio,
		MaxK: d.MaxK, Window: d.Estimator.Window, Warmup: d.Estimator.Warmup, MinSamples: d.Estimator.MinSamples,
		RecomputeShare: d.RecomputeShare, Schedule: "*/10 * * * *", Availability: DefaultAvailability()}
}

// Modelled reports whether a policy is named: the simulator then runs the
// admission stage and reports its metrics.
func (a Admission) Modelled() bool { return a.Policy != "" }

// Controller returns the admission stage's configuration, for policy
// (empty: the configured one; empty again: accept-all). Errors name the
// key (admission.policy, admission.schedule...).
func (a Admission) Controller(policy string) (admission.Config, error) {
	if policy == "" {
		policy = a.Policy
	}
	c := admission.Config{Policy: admission.AcceptAll, Threshold: a.Threshold, LowShare: a.LowShare, LowRatio: a.LowRatio,
		HighRatio: a.HighRatio, MaxK: a.MaxK, RecomputeShare: a.RecomputeShare,
		Estimator: admission.EstimatorConfig{Window: a.Window, Warmup: a.Warmup, MinSamples: a.MinSamples}}
	if policy != "" {
		c.Policy = admission.PolicyName(strings.ToLower(policy))
	}
	if err := c.Validate(); err != nil {
		var fe *fielderr.Error
		if errors.As(err, &fe) {
			return admission.Config{}, &fielderr.Error{Path: "admission." + fe.Path, Msg: fe.Msg, Err: fe.Err}
		}
		return admission.Config{}, fieldErr("admission", err.Error())
	}
	if strings.TrimSpace(a.Schedule) != "" {
		sched, err := CronParser.Parse(a.Schedule)
		if err != nil {
			return admission.Config{}, fieldErr("admission.schedule", fmt.Sprintf("%q: %v", a.Schedule, err))
		}
		c.Next = func(t time.Time) time.Time { return sched.Next(t.UTC()) }
	}
	return c, nil
}

// Validate checks the section; errors name the key.
func (a Admission) Validate() error {
	if _, err := a.Controller(""); err != nil {
		return err
	}
	return a.Availability.Validate()
}
