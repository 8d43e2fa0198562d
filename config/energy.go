package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/energyctl"
	"github.com/bora-sched/bora/fielderr"
)

// Energy is energy management (docs/models.md §5), for bora simulate
// and borad alike:
//
//	energy:
//	  policy: pemp          # "" (none) | always-on | gesp | sesp | pemp
//	  waiting_factor: 5     # alpha
//	  grace: 5m             # idle time before a host is switched off
//	  tick: 5m              # the controller's period
//	  schedule: ""          # or a cron spec ("*/10 * * * *", "@every 5m"), instead of tick
//	  consolidate: true     # PEMP may empty hosts to switch them off
//	  external_arrivals: false # also decide on each arriving external lease
//	  violation_alpha: 0    # threshold factor of the violation rate; 0: waiting_factor
//	  switch_off_ahead: false # also switch off hosts with a reservation far enough ahead
//	  idle_watts: 117       # and busy_watts, boot_watts, shutdown_watts, off_watts
//	  boot: 2m              # boot and shutdown times
//	  fuzzy: {...}          # PEMP's sets and rules (energy.FuzzyConfig)
//
// In the daemon, power.boot and power.shutdown, when set, override boot
// and shutdown (the fake power driver takes those times).
type Energy struct {
	Policy        string        `yaml:"policy" bora:"lower"`
	WaitingFactor float64       `yaml:"waiting_factor"`
	Grace         time.Duration `yaml:"grace"`
	Tick          time.Duration `yaml:"tick"`
	// Schedule, when set, is the controller's cron (standard five fields
	// or a descriptor such as "@every 5m", in UTC) instead of Tick.
	Schedule string `yaml:"schedule"`
	// Consolidate lets PEMP empty hosts to switch them off (f > 1); false
	// keeps only its switching on and the idle rule, for experiments.
	Consolidate bool `yaml:"consolidate"`
	// ExternalArrivals has the policy decide on each arriving external
	// lease too (docs/models.md §5: local arrivals and the tick only).
	ExternalArrivals bool `yaml:"external_arrivals"`
	// ViolationAlpha, when positive, is the factor of the violation
	// rate's threshold (ViolationAlpha × the mean duration) instead of
	// WaitingFactor, so that runs at different waiting factors are
	// measured against one threshold; 0 measures each run against its
	// own waiting factor.
	ViolationAlpha float64 `yaml:"violation_alpha"`
	// SwitchOffAhead lets the policies switch off a host whose next
	// reservation is far enough ahead (energyctl.BreakEven of the power
	// model), with its boot planned to end when that reservation begins.
	SwitchOffAhead    bool `yaml:"switch_off_ahead"`
	energy.PowerModel `yaml:",inline"`
	Fuzzy             energy.FuzzyConfig `yaml:"fuzzy"`
}

// DefaultEnergy is no energy management, with the reference parameters
// ready for a policy: alpha 5, a grace of 5 minutes, a tick of 5 minutes,
// 117 W per switched-on host, 2 minutes to boot and 1 to shut down.
func DefaultEnergy() Energy {
	p := energy.DefaultParams()
	return Energy{WaitingFactor: p.Alpha, Grace: p.Grace, Tick: energyctl.DefaultTick, Consolidate: true, PowerModel: energy.DefaultPowerModel()}
}

// Params returns the policies' parameters, with the fuzzy system built.
// Errors name the key (energy.waiting_factor, energy.fuzzy.rules.HR...).
func (e Energy) Params() (energy.Params, error) {
	fz, err := e.Fuzzy.Build()
	if err != nil {
		return energy.Params{}, energyKey(err)
	}
	p := energy.Params{Alpha: e.WaitingFactor, Grace: e.Grace, Fuzzy: fz}
	if err := p.Validate(); err != nil {
		return energy.Params{}, energyKey(err)
	}
	return p, nil
}

// Cron returns the controller's schedule from energy.schedule: the time
// of the tick after a given time; nil when unset (the controller ticks
// every energy.tick).
func (e Energy) Cron() (func(time.Time) time.Time, error) {
	if strings.TrimSpace(e.Schedule) == "" {
		return nil, nil
	}
	sched, err := CronParser.Parse(e.Schedule)
	if err != nil {
		return nil, fieldErr("energy.schedule", fmt.Sprintf("%q: %v", e.Schedule, err))
	}
	return func(t time.Time) time.Time { return sched.Next(t.UTC()) }, nil
}

// Validate checks the section; errors name the key.
func (e Energy) Validate() error {
	if e.Policy != "" {
		if _, ok := energy.Policies[strings.ToLower(e.Policy)]; !ok {
			return fieldErr("energy.policy", fmt.Sprintf("%q: must be one of %s", e.Policy, strings.Join(energy.PolicyNames(), ", ")))
		}
	}
	if _, err := e.Params(); err != nil {
		return err
	}
	if err := e.PowerModel.Validate(); err != nil {
		return energyKey(err)
	}
	if e.Tick <= 0 {
		return fieldErr("energy.tick", "must be positive")
	}
	if !(e.ViolationAlpha >= 0) {
		return fieldErr("energy.violation_alpha", fmt.Sprintf("must not be negative, got %v", e.ViolationAlpha))
	}
	if _, err := e.Cron(); err != nil {
		return err
	}
	if e.SwitchOffAhead && !(e.IdleWatts > e.OffWatts) {
		return fieldErr("energy.switch_off_ahead", fmt.Sprintf("switching off never pays: idle_watts %v is not above off_watts %v", e.IdleWatts, e.OffWatts))
	}
	return nil
}

// energyKey turns an energy field error (*fielderr.Error) into one naming
// the configuration key.
func energyKey(err error) error {
	var fe *fielderr.Error
	if !errors.As(err, &fe) {
		return fieldErr("energy", err.Error())
	}
	key := map[string]string{"alpha": "waiting_factor"}[fe.Path]
	if key == "" {
		key = fe.Path
	}
	if _, fuzzy := strings.CutPrefix(fe.Path, "fuzzy."); !fuzzy && fe.Err == energy.ErrInvalidFuzzy {
		key = "fuzzy." + key
	}
	return fieldErr("energy."+key, fe.Msg)
}
