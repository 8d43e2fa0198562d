package config

import (
	"errors"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// TestOneFieldErrorType: the scheduler's, the energy package's and the
// daemon sections' refusals are all *fielderr.Error, so the loader finds
// the key of each in one errors.As.
func TestOneFieldErrorType(t *testing.T) {
	cases := []struct {
		name string
		bad  func(*Config)
		path string
	}{
		{"scheduler", func(c *Config) { c.Scheduler.Overheads.SuspendRate = -1 }, "scheduler.overheads.suspend_rate"},
		{"energy", func(c *Config) { c.Energy.WaitingFactor = 0 }, "energy.waiting_factor"},
		{"energy power model", func(c *Config) { c.Energy.Boot = -time.Second }, "energy.boot"},
		{"scheduler boot wait", func(c *Config) { c.Scheduler.ImmediateBootWait = -time.Second }, "scheduler.immediate_boot_wait"},
		{"cluster", func(c *Config) { c.Cluster.Hosts = 0 }, "cluster.hosts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.bad(&c)
			var fe *fielderr.Error
			if err := c.Validate(); !errors.As(err, &fe) || fe.Path != tc.path {
				t.Fatalf("Validate = %v, want a *fielderr.Error at %s", err, tc.path)
			}
		})
	}
	var fe *fielderr.Error
	c := Default()
	c.Hosts = []HostSpec{{Name: ""}}
	if err := c.ValidateDaemon(); !errors.As(err, &fe) || fe.Path != "hosts[0].name" {
		t.Fatalf("ValidateDaemon = %v, want a *fielderr.Error at hosts[0].name", err)
	}
}
