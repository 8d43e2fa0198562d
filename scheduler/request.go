package scheduler

import (
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Kind is when a lease may start.
type Kind string

// The lease kinds of docs/models.md §1.
const (
	AdvanceReservation Kind = "advance-reservation" // exact start; accept or reject
	Immediate          Kind = "immediate"           // start now or reject
	BestEffort         Kind = "best-effort"         // queued; any time after ready time
	Deadline           Kind = "deadline"            // any time, must end by the deadline
)

// Class is what preempting a lease does to it.
type Class string

// The preemption classes of docs/models.md §1.
const (
	Cancellable    Class = "cancellable"
	Suspendable    Class = "suspendable"
	Migratable     Class = "migratable"
	NonPreemptable Class = "non-preemptable"
)

// Origin says whose lease it is: the cluster's own users (local) or guests
// arriving through a gateway (external).
type Origin string

// The origins.
const (
	Local    Origin = "local"
	External Origin = "external"
)

// Request is what a user (or a trace) asks for. Times are offsets from the
// scheduler's epoch (the simulation start, or the daemon's Unix epoch).
type Request struct {
	Name     string // trace job number or user label
	User     string
	Arrival  time.Duration // when the request is submitted
	Kind     Kind
	Start    time.Duration // AR: exact start; others: earliest start (ready time), 0 = arrival
	Duration time.Duration // requested
	Real     time.Duration // actual run time; 0 = the requested duration
	Deadline time.Duration // 0 = none
	VMs      int
	CPU      int64 // per VM, hundredths of a core
	Memory   int64 // per VM, MB
	Image    string
	Class    Class
	Origin   Origin
}

// ReadyTime is the earliest moment the lease may start.
func (r Request) ReadyTime() time.Duration {
	if r.Start > r.Arrival {
		return r.Start
	}
	return r.Arrival
}

// RealDuration is how long the lease really runs (unknown to the planner).
func (r Request) RealDuration() time.Duration {
	if r.Real <= 0 || r.Real > r.Duration {
		return r.Duration
	}
	return r.Real
}

// Validate reports the first field of r that makes no sense, naming it.
// Its messages write times as offsets from the epoch ("2h0m0s"), as a
// trace gives them; ValidateAt writes them as instants.
func (r Request) Validate() error { return r.validate(time.Duration.String) }

// ValidateAt is Validate with the times in its messages written as the
// instants epoch + offset (FormatTime), for people who gave times.
func (r Request) ValidateAt(epoch time.Time) error {
	return r.validate(func(d time.Duration) string { return FormatTime(epoch.Add(d)) })
}

// FormatTime writes an instant in reasons, history details and errors:
// "2026-11-23 18:40:00 UTC" (never a duration since an epoch).
func FormatTime(t time.Time) string { return t.Format("2006-01-02 15:04:05 MST") }

func (r Request) validate(at func(time.Duration) string) error {
	switch {
	case r.VMs < 1:
		return fieldErr("vms", "must be at least 1, got %d", r.VMs)
	case r.CPU < 0:
		return fieldErr("cpu", "must not be negative, got %d", r.CPU)
	case r.Memory < 0:
		return fieldErr("memory", "must not be negative, got %d", r.Memory)
	case r.Duration <= 0:
		return fieldErr("duration", "must be positive, got %s", r.Duration)
	case r.Arrival < 0:
		return fieldErr("arrival", "must not be negative (before the epoch), got %s", at(r.Arrival))
	case r.Real < 0:
		return fieldErr("real_duration", "must not be negative, got %s", r.Real)
	}
	switch r.Kind {
	case AdvanceReservation:
		if r.Start < r.Arrival {
			return fieldErr("start", "an advance reservation must start at or after its arrival (%s < %s)", at(r.Start), at(r.Arrival))
		}
	case Immediate, BestEffort:
	case Deadline:
		if r.Deadline <= 0 {
			return fieldErr("deadline", "a deadline lease needs a deadline")
		}
	default:
		return fieldErr("kind", "unknown kind %q (want advance-reservation, immediate, best-effort or deadline)", r.Kind)
	}
	if r.Deadline > 0 && r.Deadline < r.ReadyTime()+r.Duration {
		return fieldErr("deadline", "%s is before the earliest possible end %s", at(r.Deadline), at(r.ReadyTime()+r.Duration))
	}
	switch r.Class {
	case Cancellable, Suspendable, Migratable, NonPreemptable:
	default:
		return fieldErr("class", "unknown class %q (want cancellable, suspendable, migratable or non-preemptable)", r.Class)
	}
	switch r.Origin {
	case Local, External:
	default:
		return fieldErr("origin", "unknown origin %q (want local or external)", r.Origin)
	}
	if r.Origin == Local && r.Class != NonPreemptable {
		return fieldErr("class", "local leases are always non-preemptable, got %q", r.Class)
	}
	return nil
}

// fieldErr is a request field or setting that is not acceptable.
func fieldErr(field, format string, args ...any) error {
	return fielderr.New(field, format, args...)
}
