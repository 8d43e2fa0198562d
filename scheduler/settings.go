package scheduler

import (
	"fmt"
	"strconv"
	"time"

	"github.com/bora-sched/bora/overhead"
	"github.com/bora-sched/bora/scheduler/preempt"
)

// settable maps each key of Config.Set to its setter. The keys are those of
// the config file's scheduler section.
var settable = map[string]func(*Config, string) error{
	"backfilling":                 modeSetter(ParseBackfilling, func(c *Config) *Backfilling { return &c.Backfilling }),
	"max_reservations":            intSetter(func(c *Config) *int { return &c.MaxReservations }),
	"mapper":                      func(c *Config, v string) error { c.Mapper = v; return nil },
	"preemption.exact_limit":      intSetter(func(c *Config) *int { return &c.ExactLimit }),
	"suspension":                  modeSetter(ParseSuspension, func(c *Config) *Suspension { return &c.Suspension }),
	"suspendresume_exclusion":     modeSetter(ParseExclusion, func(c *Config) *Exclusion { return &c.Exclusion }),
	"migration":                   modeSetter(ParseMigration, func(c *Config) *Migration { return &c.Migration }),
	"requeue":                     boolSetter(func(c *Config) *bool { return &c.Requeue }),
	"check_invariants":            boolSetter(func(c *Config) *bool { return &c.CheckInvariants }),
	"scheduling_threshold_factor": floatSetter(func(c *Config) *float64 { return &c.ThresholdFactor }),
	"non_schedulable_interval":    durSetter(func(c *Config) *time.Duration { return &c.NonSchedulable }),
	"wakeup_interval":             durSetter(func(c *Config) *time.Duration { return &c.WakeUp }),
	"overheads.suspend_rate":      floatSetter(func(c *Config) *float64 { return &c.Overheads.SuspendRate }),
	"overheads.resume_rate":       floatSetter(func(c *Config) *float64 { return &c.Overheads.ResumeRate }),
	"overheads.bandwidth":         floatSetter(func(c *Config) *float64 { return &c.Overheads.Bandwidth }),
	"overheads.pause":             durSetter(func(c *Config) *time.Duration { return &c.Overheads.Pause }),
	"overheads.delta":             durSetter(func(c *Config) *time.Duration { return &c.Overheads.Delta }),
	"overheads.stop":              durSetter(func(c *Config) *time.Duration { return &c.Overheads.Stop }),
	"overheads.shutdown":          durSetter(func(c *Config) *time.Duration { return &c.Overheads.Shutdown }),
	"overheads.enactment":         durSetter(func(c *Config) *time.Duration { return &c.Overheads.Enactment }),
	"overheads.override_suspend_time": durSetter(func(c *Config) *time.Duration {
		return &c.Overheads.SuspendOverride
	}),
	"overheads.override_resume_time": durSetter(func(c *Config) *time.Duration {
		return &c.Overheads.ResumeOverride
	}),
	"preemption.policy": func(c *Config, v string) error {
		p, err := preempt.ParsePolicy(v)
		c.Policy = p
		return err
	},
}

func intSetter(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*field(c) = n
		return nil
	}
}

func floatSetter(field func(*Config) *float64) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		*field(c) = f
		return nil
	}
}

func boolSetter(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*field(c) = b
		return nil
	}
}

// ParseDuration reads a Go duration ("90s", "1h30m") or a number of seconds.
func ParseDuration(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return overhead.Seconds(f), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 90s, 1h30m, or seconds)", v)
	}
	return d, nil
}

func durSetter(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := ParseDuration(v)
		if err != nil {
			return err
		}
		*field(c) = d
		return nil
	}
}

func modeSetter[T ~string](parse func(string) (T, error), field func(*Config) *T) func(*Config, string) error {
	return func(c *Config, v string) error {
		m, err := parse(v)
		if err != nil {
			return err
		}
		*field(c) = m
		return nil
	}
}
