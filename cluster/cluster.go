// Package cluster holds Shape, the hosts of a simulated cluster (all
// alike). The configuration file's cluster section (package config) and
// the simulator (package sim) share it, so that the loader, which borad
// uses too, does not link the simulator.
//
// It imports nothing from bora.
package cluster

import "fmt"

// Shape describes the simulated hosts (all alike).
type Shape struct {
	Hosts  int   `yaml:"hosts"`
	CPU    int64 `yaml:"cpu" bora:"cores"` // per host, hundredths of a core
	Memory int64 `yaml:"memory" bora:"mb"` // per host, MB
}

// Validate reports the first field that cannot be simulated.
func (c Shape) Validate() error {
	switch {
	case c.Hosts < 1:
		return fmt.Errorf("hosts: need at least 1, got %d", c.Hosts)
	case c.CPU < 1:
		return fmt.Errorf("host cpu: must be positive, got %d", c.CPU)
	case c.Memory < 1:
		return fmt.Errorf("host memory: must be positive, got %d MB", c.Memory)
	}
	return nil
}
