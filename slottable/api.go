package slottable

import "time"

// Resource indexes of the built-in dimensions. A table may carry more
// dimensions (named at New); they follow these two.
const (
	CPU    = 0 // hundredths of a core: 100 = one core (Haizea's unit)
	Memory = 1 // megabytes
)

// Resources is a capacity or demand vector, indexed by resource index.
type Resources []int64

// HostID names a host in the table. IDs are dense: 0..len(Hosts())-1.
type HostID int

// Host is a machine whose capacity the table tracks.
type Host struct {
	ID       HostID
	Name     string
	Capacity Resources
}

// Kind says what a reservation holds the resources for.
type Kind uint8

// The kinds of reservation.
const (
	KindVM       Kind = iota // the VMs of a lease running
	KindSuspend              // pausing and saving memory images
	KindResume               // restoring memory images and unpausing
	KindMigrate              // copying memory images between hosts
	KindShutdown             // shutting the VMs down
	// KindPower holds a whole host that is off, booting or shutting down
	// (energy management); its Lease is 0, which names no lease.
	KindPower
)

// ResID names a reservation; the table assigns it on Add.
type ResID uint64

// Reservation holds resources on one host over [Start, End).
type Reservation struct {
	ID    ResID
	Lease uint64 // the lease the reservation belongs to
	Host  HostID
	Kind  Kind
	Start time.Time
	End   time.Time // exclusive
	Res   Resources // total held on the host (all the lease's VMs there)
}

// Query asks for the earliest start at which N VMs of size Per fit, each
// for Duration, on the hosts Hosts allows (all when nil), no earlier than
// From and (when Until is not zero) no later than Until.
type Query struct {
	N        int
	Per      Resources
	Duration time.Duration
	From     time.Time
	Until    time.Time
	Hosts    func(HostID) bool
	// Ignore, when not nil, treats the reservations it reports true for as
	// absent (used to ask "would it fit if these were preempted?").
	Ignore func(Reservation) bool
	// SkipHidden treats the hidden reservations (SetHidden) as absent too,
	// as an Ignore reporting them would.
	SkipHidden bool
	// ignoreOn, when not nil, lists (sorted) the only hosts holding
	// reservations Ignore reports true for: elsewhere it is not asked
	// (freed.go). With ignoreSlots, it holds each slot's host, side by
	// side (a host once per slot).
	ignoreOn []HostID
	// ignoreSlots, when not nil, lists the slots of every reservation
	// Ignore reports true for, by host: the walker takes a host's from
	// here instead of asking Ignore about every reservation in its
	// interval (freed.go).
	ignoreSlots []int32
}

// HostCount says how many VMs of the queried size fit on a host over the
// whole interval of a Fit.
type HostCount struct {
	Host  HostID
	Count int
}

// Fit is the answer to a Query: the start time and every host with room
// for at least one VM over [Start, Start+Duration), in host ID order. The
// counts add up to at least Query.N.
type Fit struct {
	Start  time.Time
	Counts []HostCount
}

// String names the kind: vm, suspend, resume, migrate, shutdown, power.
func (k Kind) String() string {
	switch k {
	case KindVM:
		return "vm"
	case KindSuspend:
		return "suspend"
	case KindResume:
		return "resume"
	case KindMigrate:
		return "migrate"
	case KindShutdown:
		return "shutdown"
	case KindPower:
		return "power"
	}
	return "unknown"
}
