package power

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/drivers"
)

var _ drivers.PowerDriver = (*Fake)(nil)

// Fake is an in-memory PowerDriver. Every host it has not heard of is on.
// Safe for concurrent use.
type Fake struct {
	clk      clock.Clock
	boot     time.Duration
	shutdown time.Duration

	mu     sync.Mutex
	hosts  map[string]*fakeHost
	faults []*Fault
}

// Fault is an injected failure of the fake power driver: switching Host
// (every host when empty) Op ("on" or "off") fails with the error Fail
// (after the full transition time, the host back where it was), or takes
// Slow times the configured time (Slow > 1). Times bounds how often it
// strikes (0: every time).
type Fault struct {
	Op    string
	Host  string
	Fail  string
	Slow  float64
	Times int
}

type fakeHost struct {
	state drivers.PowerState
	busy  chan struct{} // closed when the transition in progress ends; nil if none
}

// NewFake returns a Fake whose hosts take boot to power on and shutdown
// to power off on clk (negative times count as zero).
func NewFake(clk clock.Clock, boot, shutdown time.Duration) *Fake {
	return &Fake{clk: clk, boot: max(boot, 0), shutdown: max(shutdown, 0), hosts: make(map[string]*fakeHost)}
}

// State is host's power state.
func (f *Fake) State(host string) drivers.PowerState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hostLocked(host).state
}

// SetFaults sets the failures to inject (replacing those set before).
func (f *Fake) SetFaults(faults []Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
	for _, x := range faults {
		f.faults = append(f.faults, &x)
	}
}

// faultLocked returns the fault that strikes switching host to target
// now, counting it; nil if none.
func (f *Fake) faultLocked(host string, target drivers.PowerState) *Fault {
	op := "on"
	if target == drivers.PowerOff {
		op = "off"
	}
	for _, x := range f.faults {
		if x.Op != op || (x.Host != "" && x.Host != host) || x.Times < 0 {
			continue
		}
		if x.Times > 0 {
			if x.Times--; x.Times == 0 {
				x.Times = -1 // spent
			}
		}
		return x
	}
	return nil
}

// SetOff marks hosts as powered off, for clusters that start with hosts
// off. A host in the middle of a transition is left alone.
func (f *Fake) SetOff(hosts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, name := range hosts {
		if h := f.hostLocked(name); h.busy == nil {
			h.state = drivers.PowerOff
		}
	}
}

func (f *Fake) hostLocked(name string) *fakeHost {
	h := f.hosts[name]
	if h == nil {
		h = &fakeHost{state: drivers.PowerOn}
		f.hosts[name] = h
	}
	return h
}

// PowerOn boots host through booting to on, taking the boot time. A host
// already on returns at once; one booting is waited for; one shutting
// down is waited for, then booted. If ctx ends first the boot is
// abandoned (the host is off again) and ctx's error returned. An empty
// host name is drivers.ErrUnknownHost.
func (f *Fake) PowerOn(ctx context.Context, host string) error {
	return f.switchTo(ctx, host, drivers.PowerOn, drivers.PowerBooting, f.boot)
}

// PowerOff shuts host down through shutting-down to off, taking the
// shutdown time; otherwise as PowerOn.
func (f *Fake) PowerOff(ctx context.Context, host string) error {
	return f.switchTo(ctx, host, drivers.PowerOff, drivers.PowerShuttingDown, f.shutdown)
}

func (f *Fake) switchTo(ctx context.Context, host string, target, via drivers.PowerState, took time.Duration) error {
	if host == "" {
		return fmt.Errorf("power %s: empty host name: %w", target, drivers.ErrUnknownHost)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		f.mu.Lock()
		h := f.hostLocked(host)
		if h.state == target {
			f.mu.Unlock()
			return nil
		}
		if busy := h.busy; busy != nil {
			f.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		from := h.state
		h.state, h.busy = via, make(chan struct{})
		fault := f.faultLocked(host, target)
		f.mu.Unlock()

		var err error
		if fault != nil && fault.Slow > 1 {
			took = time.Duration(float64(took) * fault.Slow)
		}
		if took > 0 {
			select {
			case <-f.clk.After(took):
			case <-ctx.Done():
				err = ctx.Err()
			}
		}

		if err == nil && fault != nil && fault.Fail != "" {
			err = fmt.Errorf("power %s %s: %s", target, host, fault.Fail)
		}
		f.mu.Lock()
		h.state = target
		if err != nil {
			h.state = from
		}
		close(h.busy)
		h.busy = nil
		f.mu.Unlock()
		return err
	}
}
