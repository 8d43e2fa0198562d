// Package api is bora's versioned HTTP/JSON API: the wire types, the
// server that serves them over a unix socket (and optionally TCP with TLS
// and bearer tokens), and the client the CLI uses.
//
// The server knows nothing of scheduling: it authenticates the caller,
// decodes and checks the request, and calls a Service (the daemon).
package api

import (
	"context"
	"errors"
	"math"
	"time"
)

// Version is the API's path prefix.
const Version = "v1"

// LeaseRequest is the body of POST /v1/leases.
type LeaseRequest struct {
	Name string `json:"name,omitempty"`
	VMs  int    `json:"vms"`
	// CPU is cores per VM (0.5 = half a core); 0 means 1.
	CPU float64 `json:"cpu,omitempty"`
	// Memory is MB per VM; 0 means 1024.
	Memory int64  `json:"memory,omitempty"`
	Image  string `json:"image,omitempty"`
	// Start is "best-effort" (default), "now" (immediate), an RFC 3339
	// time or "+DURATION" from now (advance reservation).
	Start string `json:"start,omitempty"`
	// NotBefore is the earliest start of a best-effort or deadline lease
	// (RFC 3339 or "+DURATION").
	NotBefore string `json:"not_before,omitempty"`
	// Duration is the requested run time: a Go duration ("90m") or
	// HH:MM:SS.
	Duration string `json:"duration"`
	// Deadline (RFC 3339 or "+DURATION" from now) makes a deadline lease
	// when Start is best-effort.
	Deadline string `json:"deadline,omitempty"`
	// Class is cancellable, suspendable (default), migratable or
	// non-preemptable.
	Class string `json:"class,omitempty"`
	// Origin is local (default) or external (needs an external or admin
	// caller).
	Origin string `json:"origin,omitempty"`
	// RealDuration is, in emulation, how long the VMs really run before
	// ending by themselves (fake driver); empty = the requested duration.
	RealDuration string `json:"real_duration,omitempty"`
}

// Event is one entry of a lease's history.
type Event struct {
	At     time.Time `json:"at"`
	State  string    `json:"state"`
	Reason string    `json:"reason,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// Phase is one reserved interval of a lease's plan.
type Phase struct {
	Kind  string    `json:"kind"` // prepare, vm, suspend, migrate, resume, stop, shutdown
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Hosts []string  `json:"hosts"` // one per VM
}

// Lease is what the API shows of a lease.
type Lease struct {
	ID        uint64    `json:"id"`
	Name      string    `json:"name,omitempty"`
	User      string    `json:"user"`
	Kind      string    `json:"kind"` // advance-reservation, immediate, best-effort, deadline
	Class     string    `json:"class"`
	Origin    string    `json:"origin"`
	State     string    `json:"state"`
	VMs       int       `json:"vms"`
	CPU       float64   `json:"cpu"`    // cores per VM
	Memory    int64     `json:"memory"` // MB per VM
	Image     string    `json:"image,omitempty"`
	Submitted time.Time `json:"submitted"`
	// Start is the first start (or the planned one while it has not
	// started); End the time it reached a terminal state.
	Start           *time.Time `json:"start,omitempty"`
	End             *time.Time `json:"end,omitempty"`
	Deadline        *time.Time `json:"deadline,omitempty"`
	DurationS       float64    `json:"duration_s"`  // requested
	RemainingS      float64    `json:"remaining_s"` // requested time still to run
	Hosts           []string   `json:"hosts,omitempty"`
	Reason          string     `json:"reason,omitempty"`
	Detail          string     `json:"detail,omitempty"`
	Preemptions     int        `json:"preemptions"`
	Migrations      int        `json:"migrations"`
	OverheadS       float64    `json:"overhead_s"`
	DeadlineMissed  bool       `json:"deadline_missed,omitempty"`
	History         []Event    `json:"history,omitempty"`
	Plan            []Phase    `json:"plan,omitempty"`
	DriverIDs       []string   `json:"driver_ids,omitempty"` // e.g. OpenNebula VM ids, domain names
	EnactmentErrors []string   `json:"enactment_errors,omitempty"`
	// Cluster is the cluster that holds the lease, when a gateway
	// answers (bora gateway serve); empty from borad.
	Cluster string `json:"cluster,omitempty"`
}

// LeaseFilter selects leases in GET /v1/leases (?state=&user=).
type LeaseFilter struct {
	State string `json:"state,omitempty"`
	User  string `json:"user,omitempty"`
}

// Host is what the API shows of a host.
type Host struct {
	Name       string   `json:"name"`
	CPU        float64  `json:"cpu"`    // cores
	Memory     int64    `json:"memory"` // MB
	Enabled    bool     `json:"enabled"`
	Up         bool     `json:"up"`
	Power      string   `json:"power"`    // off, booting, on, shutting-down
	UsedCPU    float64  `json:"used_cpu"` // cores reserved now
	UsedMemory int64    `json:"used_memory"`
	Leases     []uint64 `json:"leases,omitempty"` // holding reservations now
	// Busy counts the other users' leases holding reservations now, which
	// api.private_data keeps out of Leases.
	Busy      int     `json:"busy,omitempty"`
	EnergyKWh float64 `json:"energy_kwh"`
	// PowerError is the power driver's last failure to switch the host
	// (with when, and until when energy management leaves it alone);
	// empty once a switch works.
	PowerError string `json:"power_error,omitempty"`
	// Availability is the host's availability estimate (docs/models.md
	// §4): 1 before any period of use has ended; AvailabilityPeriods
	// how many have.
	Availability        float64 `json:"availability"`
	AvailabilityPeriods int     `json:"availability_periods"`
}

// BusyKind is the Kind of an Interval of another user's lease that
// api.private_data hides: Lease is 0 and VMs 0; the host, the times and the
// resources are kept.
const BusyKind = "busy"

// Interval is one reservation in the schedule.
type Interval struct {
	Lease  uint64    `json:"lease"`
	Host   string    `json:"host"`
	Kind   string    `json:"kind"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	VMs    int       `json:"vms"`
	CPU    float64   `json:"cpu"` // cores on the host
	Memory int64     `json:"memory"`
}

// Schedule is the slot table over a window (GET /v1/schedule?from=&to=).
type Schedule struct {
	Now       time.Time  `json:"now"`
	From      time.Time  `json:"from"`
	To        time.Time  `json:"to"`
	Hosts     []string   `json:"hosts"`
	Intervals []Interval `json:"intervals"`
	// Clamped is set when the server narrowed the window asked for.
	Clamped *Clamped `json:"clamped,omitempty"`
}

// Clamped says how the server narrowed a schedule window: the bound it
// used instead of the one asked for, and why.
type Clamped struct {
	From   *time.Time `json:"from,omitempty"`
	To     *time.Time `json:"to,omitempty"`
	Reason string     `json:"reason"`
}

// The times the scheduler can hold: from its epoch (the Unix epoch) to
// the last second of int64 nanoseconds since it (2262-04-11).
var (
	EarliestTime = time.Unix(0, 0).UTC()
	LatestTime   = time.Unix(math.MaxInt64/int64(time.Second), 0).UTC()
)

// Stats is GET /v1/stats.
type Stats struct {
	Now           time.Time      `json:"now"`
	Started       time.Time      `json:"started"`
	Leases        map[string]int `json:"leases"` // by state
	Queue         int            `json:"queue"`
	Preemptions   int            `json:"preemptions"`
	PreemptedVMs  int            `json:"preempted_vms"`
	OverheadS     float64        `json:"overhead_s"`
	Rejected      int            `json:"rejected"`
	Hosts         int            `json:"hosts"`
	HostsOn       int            `json:"hosts_on"`
	Utilisation   float64        `json:"utilisation"` // cpu reserved now / capacity, 0..1
	EnergyKWh     float64        `json:"energy_kwh"`
	ViolationRate float64        `json:"violation_rate"`
	Decisions     int            `json:"decisions"`
	// Admission is the admission stage, when a policy is set
	// (admission.policy); its Explain is left out.
	Admission *Admission `json:"admission,omitempty"`
}

// Error is the body of every 4xx and 5xx answer.
type Error struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"` // the request field at fault
}

// Caller is who makes a request, as the server authenticated them.
type Caller struct {
	User     string
	UID      int  // -1 when authenticated by token
	Admin    bool // may act on any lease and on hosts
	External bool // may submit external leases (a gateway)
}

// Service is what the server serves: the daemon implements it. Methods
// return the errors below (wrapped) or a *fielderr.Error for bad input (the server answers 400 naming the field).
type Service interface {
	CreateLease(ctx context.Context, c Caller, r LeaseRequest) (Lease, error)
	ListLeases(ctx context.Context, c Caller, f LeaseFilter) ([]Lease, error)
	GetLease(ctx context.Context, c Caller, id uint64) (Lease, error)
	CancelLease(ctx context.Context, c Caller, id uint64) (Lease, error)
	// LeaseAction is an admin operation: "suspend", "resume" or "migrate".
	LeaseAction(ctx context.Context, c Caller, id uint64, action string) (Lease, error)
	ListHosts(ctx context.Context, c Caller) ([]Host, error)
	GetHost(ctx context.Context, c Caller, name string) (Host, error)
	// HostAction is an admin operation: "enable", "disable", "on", "off".
	HostAction(ctx context.Context, c Caller, name, action string) (Host, error)
	Schedule(ctx context.Context, c Caller, from, to time.Time) (Schedule, error)
	Stats(ctx context.Context, c Caller) (Stats, error)
	// Admission is the admission stage (ErrNotFound without a policy).
	Admission(ctx context.Context, c Caller) (Admission, error)
	// Health is nil when the scheduling loop answers.
	Health(ctx context.Context) error
}

// Errors a Service returns; the server maps each to its status code.
var (
	// ErrNotFound (404): no such lease or host, or a lease of another user.
	ErrNotFound = errors.New("not found")
	// ErrForbidden (403): the caller may not do this (admin operations).
	ErrForbidden = errors.New("forbidden")
	// ErrConflict (409): not possible in the current state (e.g. cancelling
	// a lease that is over).
	ErrConflict = errors.New("conflict")
	// ErrUnavailable (503): the daemon is shutting down or its store failed.
	ErrUnavailable = errors.New("unavailable")
	// ErrNotApplied (500): the daemon failed (a panic in the scheduling
	// loop) while it did the operation, and threw away everything the
	// operation changed: it can be tried again.
	ErrNotApplied = errors.New("internal error: the operation failed and was not applied (see the daemon's log)")
)
