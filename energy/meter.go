package energy

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/bora-sched/bora/powerstate"
)

// Meter follows the power state and busy fraction of each host over time
// and integrates the power they draw into energy. Power is piecewise
// constant between the changes the Meter is told about (Set, SetLoad,
// AddHost), so the integral is exact.
//
// The Meter never reads the clock: every call says what time it is, and
// times must not go backwards across calls (ErrTimeBackwards). It is safe
// for concurrent use.
type Meter struct {
	mu      sync.Mutex
	model   PowerModel
	hosts   map[string]*hostMeter
	last    time.Time // the latest change
	watts   float64   // total power since last
	samples []Sample
}

type hostMeter struct {
	state  powerstate.State
	load   float64
	since  time.Time // the host's power has been constant since
	joules float64   // energy up to since
}

func (h *hostMeter) watts(m PowerModel) float64 { return m.Watts(h.state, h.load) }

// Sample is a step of the total power over time: from Time until the next
// sample's Time (or now, for the last one) the hosts drew Watts.
type Sample struct {
	Time  time.Time
	Watts float64
}

// NewMeter starts metering hosts, all in state initial (busy fraction 0)
// from start. It returns an error wrapping ErrInvalidPowerModel,
// ErrDuplicateHost or ErrUnknownState.
func NewMeter(model PowerModel, hosts []string, start time.Time, initial powerstate.State) (*Meter, error) {
	if err := model.Validate(); err != nil {
		return nil, err
	}
	if _, err := ParseState(string(initial)); err != nil {
		return nil, err
	}
	m := &Meter{model: model, hosts: make(map[string]*hostMeter, len(hosts)), last: start}
	for _, h := range hosts {
		if h == "" || m.hosts[h] != nil {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateHost, h)
		}
		hm := &hostMeter{state: initial, since: start}
		m.hosts[h] = hm
		m.watts += hm.watts(model)
	}
	m.samples = []Sample{{Time: start, Watts: m.watts}}
	return m, nil
}

// Model returns the power model the Meter uses.
func (m *Meter) Model() PowerModel { return m.model }

// AddHost starts metering another host, in state, from now. It returns
// an error wrapping ErrDuplicateHost, ErrUnknownState or
// ErrTimeBackwards.
func (m *Meter) AddHost(now time.Time, host string, state powerstate.State) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := ParseState(string(state)); err != nil {
		return err
	}
	if host == "" || m.hosts[host] != nil {
		return fmt.Errorf("%w: %q", ErrDuplicateHost, host)
	}
	if err := m.advance(now); err != nil {
		return err
	}
	h := &hostMeter{state: state, since: now}
	m.hosts[host] = h
	m.change(now, h.watts(m.model))
	return nil
}

// Set records that host entered state at now. Staying in the same state
// is a no-op; any change but off -> booting -> on -> shutting-down -> off
// returns an error wrapping ErrIllegalTransition that names both states.
// Entering off resets the host's busy fraction to 0. Other errors wrap
// ErrUnknownHost, ErrUnknownState or ErrTimeBackwards; on error nothing
// changes.
func (m *Meter) Set(now time.Time, host string, state powerstate.State) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, err := m.host(host)
	if err != nil {
		return err
	}
	if _, err := ParseState(string(state)); err != nil {
		return err
	}
	if !Legal(h.state, state) {
		return fmt.Errorf("%w: host %s from %s to %s (want %s)", ErrIllegalTransition, host, h.state, state, next[h.state])
	}
	if err := m.advance(now); err != nil {
		return err
	}
	if state == h.state {
		return nil
	}
	old := m.close(h, now)
	h.state = state
	if state == Off {
		h.load = 0
	}
	m.change(now, h.watts(m.model)-old)
	return nil
}

// SetLoad records that from now host's CPU is busy the fraction frac
// (0..1) of the time; it changes the power of a host that is on and is
// kept for when it comes on. Errors wrap ErrInvalidLoad, ErrUnknownHost or
// ErrTimeBackwards; on error nothing changes.
func (m *Meter) SetLoad(now time.Time, host string, frac float64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if math.IsNaN(frac) || frac < 0 || frac > 1 {
		return fmt.Errorf("%w: host %s: %g", ErrInvalidLoad, host, frac)
	}
	h, err := m.host(host)
	if err != nil {
		return err
	}
	if err := m.advance(now); err != nil {
		return err
	}
	old := m.close(h, now)
	h.load = frac
	m.change(now, h.watts(m.model)-old)
	return nil
}

// State returns host's power state; the error wraps ErrUnknownHost.
func (m *Meter) State(host string) (powerstate.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, err := m.host(host)
	if err != nil {
		return "", err
	}
	return h.state, nil
}

// Hosts returns the metered hosts, sorted by name.
func (m *Meter) Hosts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.hosts))
	for n := range m.hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Counts returns how many hosts are in each power state now (every state
// is a key, possibly with 0). States change only through Set, so no time
// is needed.
func (m *Meter) Counts() map[powerstate.State]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := make(map[powerstate.State]int, len(States))
	for _, s := range States {
		c[s] = 0
	}
	for _, h := range m.hosts {
		c[h.state]++
	}
	return c
}

// Energy returns the energy the hosts drew from the start up to now, in
// kWh, in total and per host. A now before the latest recorded change
// counts up to that change (the Meter keeps no per-host history).
func (m *Meter) Energy(now time.Time) (total float64, perHost map[string]float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	perHost = make(map[string]float64, len(m.hosts))
	// Summed in the order of the names: a float sum in map order would
	// differ in its last digits from run to run.
	for _, name := range slices.Sorted(maps.Keys(m.hosts)) {
		h := m.hosts[name]
		j := h.joules
		if dt := now.Sub(h.since).Seconds(); dt > 0 {
			j += h.watts(m.model) * dt
		}
		perHost[name] = j / JoulesPerKWh
		total += j
	}
	return total / JoulesPerKWh, perHost
}

// Watts returns the total power the hosts draw now.
func (m *Meter) Watts() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.watts
}

// Samples returns the total power over time as steps, one per change of
// the total (changes at the same instant are merged; a change that leaves
// the total as it was adds no step). The first sample is at the start.
func (m *Meter) Samples() []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Sample(nil), m.samples...)
}

func (m *Meter) host(name string) (*hostMeter, error) {
	h := m.hosts[name]
	if h == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownHost, name)
	}
	return h, nil
}

// advance checks that now is not before the latest change.
func (m *Meter) advance(now time.Time) error {
	if now.Before(m.last) {
		return fmt.Errorf("%w: %s is before the last change at %s", ErrTimeBackwards,
			now.Format(time.RFC3339Nano), m.last.Format(time.RFC3339Nano))
	}
	return nil
}

// close adds h's energy up to now and returns the power it drew.
func (m *Meter) close(h *hostMeter, now time.Time) float64 {
	w := h.watts(m.model)
	h.joules += w * now.Sub(h.since).Seconds()
	h.since = now
	return w
}

// change adds delta watts to the total at now and records the step.
func (m *Meter) change(now time.Time, delta float64) {
	m.last = now
	m.watts += delta
	if math.Abs(m.watts) < 1e-9 {
		m.watts = 0 // no float residue when everything is off
	}
	n := len(m.samples)
	if n > 0 && m.samples[n-1].Time.Equal(now) {
		m.samples = m.samples[:n-1]
		n--
	}
	if n > 0 && m.samples[n-1].Watts == m.watts {
		return
	}
	m.samples = append(m.samples, Sample{Time: now, Watts: m.watts})
}
