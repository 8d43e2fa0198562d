package workload

import (
	"errors"
	"time"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
)

// Options are the conversion defaults of docs/formats.md §4, for what a trace
// does not say. Start from DefaultOptions and override fields.
type Options struct {
	// CPUPerVM is the CPU of each VM when the trace gives none (SWF, and
	// bora's format without cpu), in hundredths of a core. Default 100.
	CPUPerVM int64 `yaml:"cpu_per_vm" bora:"cores"`
	// MemoryPerVM is the memory of each VM in MB when the trace gives none.
	// Default 1024.
	MemoryPerVM int64 `yaml:"memory_per_vm" bora:"mb"`
	// SuspensionOff makes leases that would be suspendable cancellable
	// instead (and deadline leases non-preemptable instead of migratable).
	SuspensionOff bool `yaml:"suspension_off"`
	// ForceOrigin, when set, is the origin of every lease. scheduler.Local
	// (the --inject files) also makes every lease non-preemptable, since
	// local leases always are.
	ForceOrigin scheduler.Origin
	// DefaultClass is the class of best-effort leases when the trace does
	// not give one. Empty means scheduler.Suspendable, the default.
	DefaultClass scheduler.Class
	// Epoch is the simulation start that absolute date-times in a trace
	// are taken relative to. The zero time means 1970-01-01 00:00:00 UTC.
	Epoch time.Time
}

// DefaultOptions returns the defaults of docs/formats.md §4: one core and
// 1024 MB per VM, best-effort leases suspendable, origins by lease kind,
// absolute times relative to the Unix epoch.
func DefaultOptions() Options {
	return Options{
		CPUPerVM:     100,
		MemoryPerVM:  1024,
		DefaultClass: scheduler.Suspendable,
		Epoch:        time.Unix(0, 0).UTC(),
	}
}

func (o Options) epoch() time.Time {
	if o.Epoch.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return o.Epoch
}

// preemptableClass is the class of a lease that may be preempted and says
// no more.
func (o Options) preemptableClass() scheduler.Class {
	c := o.DefaultClass
	if c == "" {
		c = scheduler.Suspendable
	}
	if o.SuspensionOff && c == scheduler.Suspendable {
		return scheduler.Cancellable
	}
	return c
}

// defaults returns the origin and class of a lease of kind k that states
// neither, following docs/formats.md §4.
func (o Options) defaults(k scheduler.Kind) (scheduler.Origin, scheduler.Class) {
	switch k {
	case scheduler.BestEffort:
		return scheduler.External, o.preemptableClass()
	case scheduler.Deadline:
		if o.SuspensionOff {
			return scheduler.External, scheduler.NonPreemptable
		}
		return scheduler.External, scheduler.Migratable
	default: // advance reservations, immediate leases
		return scheduler.Local, scheduler.NonPreemptable
	}
}

// classify fills in the origin and class of a request from what the trace
// stated (empty when it did not) and the options. A lease stated to be
// preemptable and of no stated origin is external, since local leases are
// never preemptable.
func (o Options) classify(k scheduler.Kind, origin scheduler.Origin, class scheduler.Class) (scheduler.Origin, scheduler.Class) {
	if o.ForceOrigin == scheduler.Local {
		return scheduler.Local, scheduler.NonPreemptable
	}
	defOrigin, defClass := o.defaults(k)
	if origin == "" && o.ForceOrigin != "" {
		origin = o.ForceOrigin
	}
	switch {
	case origin == "" && class == "":
		return defOrigin, defClass
	case origin == "":
		if class != scheduler.NonPreemptable {
			return scheduler.External, class
		}
		return defOrigin, class
	case class == "":
		if origin == scheduler.Local {
			return origin, scheduler.NonPreemptable
		}
		return origin, defClass
	}
	return origin, class
}

// preemptible turns an LWF preemptible attribute into a class.
func (o Options) preemptible(yes bool) scheduler.Class {
	if !yes {
		return scheduler.NonPreemptable
	}
	return o.preemptableClass()
}

// check validates a finished request, turning a failure into a ParseError
// at p that names the offending field.
func check(p pos, r scheduler.Request) error {
	err := r.Validate()
	if err == nil {
		return nil
	}
	pe := p.errorf(ErrInvalidRequest, "%v", err)
	pe.Cause = err
	var fe *fielderr.Error
	if errors.As(err, &fe) {
		if pe.Field == "" {
			pe.Field = fe.Path
		} else {
			pe.Field += "." + fe.Path
		}
		pe.Msg = fe.Msg
	}
	return pe
}
