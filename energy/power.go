package energy

import (
	"fmt"
	"math"
	"time"

	"github.com/bora-sched/bora/powerstate"
)

// The power states of a host (package powerstate).
const (
	Off          = powerstate.Off
	Booting      = powerstate.Booting
	On           = powerstate.On
	ShuttingDown = powerstate.ShuttingDown
)

// States lists the power states in the order of their cycle.
var States = []powerstate.State{Off, Booting, On, ShuttingDown}

// next is the one legal successor of each state.
var next = map[powerstate.State]powerstate.State{
	Off:          Booting,
	Booting:      On,
	On:           ShuttingDown,
	ShuttingDown: Off,
}

// Legal reports whether a host may go from one power state to another:
// off -> booting -> on -> shutting-down -> off, or stay where it is.
func Legal(from, to powerstate.State) bool {
	n, ok := next[from]
	return ok && (to == from || to == n)
}

// Next is the state that follows s in the power cycle (off, booting, on,
// shutting down, off); "" for a state that is not one.
func Next(s powerstate.State) powerstate.State { return next[s] }

// ParseState returns the power state named s, or an error wrapping
// ErrUnknownState.
func ParseState(s string) (powerstate.State, error) {
	if _, ok := next[powerstate.State(s)]; ok {
		return powerstate.State(s), nil
	}
	return "", fmt.Errorf("%w %q (valid: off, booting, on, shutting-down)", ErrUnknownState, s)
}

// ReferenceWatts is the power of a switched-on host in docs/models.md
// §5 (the SPECpower figure).
const ReferenceWatts = 117

// PowerModel says how much power a host draws in each state and how long
// its transitions take. A switched-on host draws IdleWatts plus its busy
// fraction (the share of its CPU in use, 0..1) times BusyWatts-IdleWatts.
// Boot and Shutdown are for the caller (simulator, fake power driver),
// which moves the host to on (off) that long after booting (shutting
// down); the Meter only records the changes it is told.
type PowerModel struct {
	IdleWatts     float64       `yaml:"idle_watts"`
	BusyWatts     float64       `yaml:"busy_watts"`
	BootWatts     float64       `yaml:"boot_watts"`
	ShutdownWatts float64       `yaml:"shutdown_watts"`
	OffWatts      float64       `yaml:"off_watts"`
	Boot          time.Duration `yaml:"boot"`
	Shutdown      time.Duration `yaml:"shutdown"`
}

// DefaultPowerModel returns the reference model: 117 W for a switched-on
// host, idle or busy; booting and shutting down at the same 117 W; 0 W
// when off; 2 minutes to boot and 1 minute to shut down (docs/models.md §5
// leaves the times to configuration; these are typical of a server with a
// network boot).
func DefaultPowerModel() PowerModel {
	return PowerModel{
		IdleWatts: ReferenceWatts, BusyWatts: ReferenceWatts,
		BootWatts: ReferenceWatts, ShutdownWatts: ReferenceWatts,
		OffWatts: 0,
		Boot:     2 * time.Minute, Shutdown: time.Minute,
	}
}

// Validate checks that every wattage is finite and not negative and the
// times are not negative. It returns a *fielderr.Error wrapping
// ErrInvalidPowerModel.
func (m PowerModel) Validate() error {
	for _, w := range []struct {
		field string
		v     float64
	}{
		{"idle_watts", m.IdleWatts}, {"busy_watts", m.BusyWatts},
		{"boot_watts", m.BootWatts}, {"shutdown_watts", m.ShutdownWatts},
		{"off_watts", m.OffWatts},
	} {
		if math.IsNaN(w.v) || math.IsInf(w.v, 0) || w.v < 0 {
			return fieldErr(ErrInvalidPowerModel, w.field, "must be finite and not negative, got %g", w.v)
		}
	}
	if m.Boot < 0 {
		return fieldErr(ErrInvalidPowerModel, "boot", "must not be negative, got %s", m.Boot)
	}
	if m.Shutdown < 0 {
		return fieldErr(ErrInvalidPowerModel, "shutdown", "must not be negative, got %s", m.Shutdown)
	}
	return nil
}

// Watts is the power a host draws in state with the busy fraction load
// (used only when on; clamped to [0, 1]). An unknown state draws 0.
func (m PowerModel) Watts(state powerstate.State, load float64) float64 {
	switch state {
	case On:
		if math.IsNaN(load) {
			load = 0
		}
		load = math.Max(0, math.Min(1, load))
		return m.IdleWatts + load*(m.BusyWatts-m.IdleWatts)
	case Booting:
		return m.BootWatts
	case ShuttingDown:
		return m.ShutdownWatts
	case Off:
		return m.OffWatts
	}
	return 0
}

// JoulesPerKWh converts joules (watt-seconds) to kWh.
const JoulesPerKWh = 3.6e6
