package fake

import (
	"fmt"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/overhead"
)

// Config describes the emulated cluster.
type Config struct {
	Hosts     []HostSpec
	Overheads overhead.Params // timings of the operations
	// StateFile, when set, is where the VMs, the hosts that are down and
	// the run-time accounting are kept (JSON, replaced atomically after
	// every change); New reads it back.
	StateFile string
	Faults    []Fault
	// Boot, when positive, is the time Start takes instead of
	// Overheads.Enactment.
	Boot time.Duration
}

// HostSpec is one emulated host.
type HostSpec struct {
	Name   string
	CPU    int64 // hundredths of a core
	Memory int64 // MB
}

// Operation names a Fault can match.
const (
	OpStart       = "start"
	OpSuspend     = "suspend"
	OpResume      = "resume"
	OpMigrate     = "migrate"
	OpLiveMigrate = "live-migrate"
	OpStop        = "stop"
	OpShutdown    = "shutdown"
	// OpHostLoss is not an operation but an event: Host goes down After
	// the driver was created (or the fault injected).
	OpHostLoss = "host-loss"
)

var faultOps = []string{OpStart, OpSuspend, OpResume, OpMigrate, OpLiveMigrate, OpStop, OpShutdown, OpHostLoss}

// Fault is an injected misbehaviour.
//
// For an operation (Op is one of start, suspend, resume, migrate,
// live-migrate, stop, shutdown) it fires on the calls that match Lease
// (0 = any) and Host (""= any; a call matches when any of its hosts,
// sources and destinations included, is Host), Times times (0 = on every
// match). When it fires the operation takes Slow times longer (if Slow
// > 1) and then, if Fail is set, fails with that text, wrapping
// ErrInjected, without any effect. Calls with nothing to do (every VM
// already in the wanted state) return at once and fire no fault.
//
// For Op "host-loss", Host goes down After on the clock: its VMs vanish
// with a drivers.VMCrashed event each, after a drivers.HostDown event.
type Fault struct {
	Op    string
	Lease uint64
	Host  string
	Times int
	Fail  string
	Slow  float64
	After time.Duration
}

func fieldErr(field, format string, args ...any) error {
	return fielderr.New(field, format, args...)
}

// validate checks the configuration; errors are *fielderr.Error
// naming the field, e.g. `hosts[2].name: duplicate "h1"`.
func (c Config) validate() error {
	if len(c.Hosts) == 0 {
		return fieldErr("hosts", "at least one host required")
	}
	seen := make(map[string]bool, len(c.Hosts))
	for i, h := range c.Hosts {
		p := fmt.Sprintf("hosts[%d]", i)
		switch {
		case h.Name == "":
			return fieldErr(p+".name", "required")
		case seen[h.Name]:
			return fieldErr(p+".name", "duplicate %q", h.Name)
		case h.CPU <= 0:
			return fieldErr(p+".cpu", "must be positive, got %d", h.CPU)
		case h.Memory <= 0:
			return fieldErr(p+".memory", "must be positive, got %d", h.Memory)
		}
		seen[h.Name] = true
	}
	if err := c.Overheads.Validate(); err != nil {
		return err
	}
	if c.Boot < 0 {
		return fieldErr("boot", "must not be negative, got %s", c.Boot)
	}
	for i, f := range c.Faults {
		if err := f.validate(fmt.Sprintf("faults[%d]", i), seen); err != nil {
			return err
		}
	}
	return nil
}

// validate checks one fault against the known hosts; p is its field path.
func (f Fault) validate(p string, hosts map[string]bool) error {
	known := false
	for _, op := range faultOps {
		known = known || f.Op == op
	}
	if !known {
		return fieldErr(p+".op", "unknown op %q (want %s)", f.Op, strings.Join(faultOps, ", "))
	}
	if f.Host != "" && !hosts[f.Host] {
		return fieldErr(p+".host", "unknown host %q", f.Host)
	}
	if f.Op == OpHostLoss {
		switch {
		case f.Host == "":
			return fieldErr(p+".host", "required for host-loss")
		case f.After < 0:
			return fieldErr(p+".after", "must not be negative, got %s", f.After)
		case f.Lease != 0 || f.Times != 0 || f.Fail != "" || f.Slow != 0:
			return fieldErr(p, "host-loss takes only host and after")
		}
		return nil
	}
	switch {
	case f.After != 0:
		return fieldErr(p+".after", "only for host-loss")
	case f.Times < 0:
		return fieldErr(p+".times", "must not be negative, got %d", f.Times)
	case f.Slow != 0 && f.Slow < 1:
		return fieldErr(p+".slow", "must be 0 (off) or at least 1, got %g", f.Slow)
	case f.Fail == "" && f.Slow <= 1:
		return fieldErr(p, "does nothing: set fail or a slow factor above 1")
	}
	return nil
}
