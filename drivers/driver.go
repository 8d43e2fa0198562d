// Package drivers defines how bora enacts its decisions: the Driver
// interface that the fake, libvirt and OpenNebula drivers implement, and
// the PowerDriver interface for switching hosts on and off.
//
// Every operation is context-first, works on the VMs of one lease, and is
// idempotent: calling it again after a crash, a timeout or a lost answer
// does the right thing (a VM already running is not started twice; one
// already saved is not saved again; one already gone is not an error for
// Stop, Shutdown or Cleanup). The daemon bounds each call with the
// context's deadline and retries it on error before failing the lease.
package drivers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bora-sched/bora/powerstate"
)

// LeaseID is the scheduler's lease number.
type LeaseID = uint64

// VM is one VM of a lease, as an operation needs it.
type VM struct {
	Lease LeaseID
	Index int // 0..n-1 within the lease
	// Host is where the operation happens: for Resume and Migrate the
	// destination, for LiveMigrate the source (its to slice names the
	// destinations).
	Host   string
	CPU    int64  // hundredths of a core
	Memory int64  // MB
	Image  string // disk image or template name; "" = the driver's default
}

// Name is the name bora gives the VM on its host: "bora-<lease>-<index>".
// Drivers use it to find their own VMs after a restart and never touch
// VMs whose names do not parse with ParseName.
func (v VM) Name() string { return fmt.Sprintf("bora-%d-%d", v.Lease, v.Index) }

// ParseName reads a VM name made by VM.Name; ok is false for any other
// name.
func ParseName(name string) (lease LeaseID, index int, ok bool) {
	var l uint64
	var i int
	n, err := fmt.Sscanf(name, "bora-%d-%d", &l, &i)
	if err != nil || n != 2 || fmt.Sprintf("bora-%d-%d", l, i) != name {
		return 0, 0, false
	}
	return l, i, true
}

// Host is a host the driver manages.
type Host struct {
	Name   string
	CPU    int64 // hundredths of a core
	Memory int64 // MB
	Up     bool  // reachable and accepting VMs
}

// State is what a driver sees of one VM.
type State string

// States reported by List.
const (
	Running State = "running" // computing
	Paused  State = "paused"  // process alive, not scheduled
	Saved   State = "saved"   // memory image on (shared) storage, no process
	Stopped State = "stopped" // known to the host but shut off
)

// VMStatus is one VM a driver found.
type VMStatus struct {
	Lease  LeaseID
	Index  int
	Host   string
	State  State
	Detail string
	// CPU (hundredths of a core) and Memory (MB) the VM holds on its host,
	// as the driver sees them; 0 when it cannot tell.
	CPU    int64
	Memory int64
}

// EventKind says what happened behind bora's back.
type EventKind string

// Event kinds.
const (
	VMExited  EventKind = "vm-exited"  // the guest shut down by itself: its work is over
	VMCrashed EventKind = "vm-crashed" // the guest died (or was killed) unexpectedly
	HostDown  EventKind = "host-down"  // the host stopped answering
	HostUp    EventKind = "host-up"    // the host answers again
)

// Event is something a driver noticed without being asked.
type Event struct {
	Kind   EventKind
	Lease  LeaseID // VM events
	Index  int     // VM events
	Host   string
	Detail string
}

// Driver enacts operations on the VMs of leases. Methods may be called
// concurrently for different leases; the daemon never runs two operations
// on the same lease at once.
type Driver interface {
	// Hosts lists the hosts with their capacity.
	Hosts(ctx context.Context) ([]Host, error)
	// Start creates and boots the VMs, each on its Host. A VM that already
	// runs there is left alone.
	Start(ctx context.Context, vms []VM) error
	// Suspend pauses every VM, then saves each one's memory image to
	// storage all hosts can read, and removes the process. A VM already
	// saved is left alone.
	Suspend(ctx context.Context, vms []VM) error
	// Migrate copies the saved images of vms from the hosts in from
	// (from[i] for vms[i]) to vms[i].Host. On shared storage it has
	// nothing to copy and returns at once.
	Migrate(ctx context.Context, vms []VM, from []string) error
	// Resume restores each saved VM on its Host and unpauses it. A VM
	// already running there is left alone.
	Resume(ctx context.Context, vms []VM) error
	// LiveMigrate moves running VMs to the hosts in to (to[i] for vms[i]),
	// without stopping them. Drivers that cannot return ErrUnsupported.
	LiveMigrate(ctx context.Context, vms []VM, to []string) error
	// Stop destroys the VMs at once (a cancellation). A VM that is not
	// there is not an error.
	Stop(ctx context.Context, vms []VM) error
	// Shutdown asks the guests to shut down, waits up to grace, then
	// destroys what is left.
	Shutdown(ctx context.Context, vms []VM, grace time.Duration) error
	// Cleanup removes everything left of the VMs: definitions, overlays,
	// saved images.
	Cleanup(ctx context.Context, vms []VM) error
	// List reports every VM of bora's on every reachable host, for
	// reconciliation after a restart.
	List(ctx context.Context) ([]VMStatus, error)
	// Events delivers what the driver notices by itself. The channel is
	// closed by Close.
	Events() <-chan Event
	// Close releases connections and stops event delivery.
	Close() error
}

// PowerState is a host's power state (package powerstate, which the
// energy package and the scheduler share without importing drivers).
type PowerState = powerstate.State

// Power states.
const (
	PowerOff          = powerstate.Off
	PowerBooting      = powerstate.Booting
	PowerOn           = powerstate.On
	PowerShuttingDown = powerstate.ShuttingDown
)

// PowerDriver switches hosts on and off. Both operations are idempotent
// and return when the host has reached the state (or ctx ends).
type PowerDriver interface {
	PowerOn(ctx context.Context, host string) error
	PowerOff(ctx context.Context, host string) error
}

// Errors drivers return (wrapped, with the host and VM in the message).
var (
	// ErrUnsupported is returned by an operation the driver cannot do.
	ErrUnsupported = errors.New("operation not supported by this driver")
	// ErrUnknownHost is returned when a VM names a host the driver does
	// not manage.
	ErrUnknownHost = errors.New("unknown host")
	// ErrNotSaved is returned by Resume or Migrate for a VM that has no
	// saved image and is not running.
	ErrNotSaved = errors.New("no saved image")
	// ErrHostDown is returned when the host does not answer.
	ErrHostDown = errors.New("host down")
)
