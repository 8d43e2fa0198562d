package energyctl

import (
	"math"
	"testing"
	"time"

	"github.com/bora-sched/bora/energy"
)

// TestBreakEven: shutting down 60 s at 150 W and booting 120 s at 200 W
// with 10 W off cost (150 - 10) x 60 + (200 - 10) x 120 = 31200 J more
// than staying off; off saves 100 - 10 = 90 W against idling: it pays
// past 31200 / 90 = 346.67 s. The reference model (117 W in every state
// on, 0 off) pays from the cycle itself, 180 s; a model in which off
// draws as much as idle never pays.
func TestBreakEven(t *testing.T) {
	m := energy.PowerModel{IdleWatts: 100, BusyWatts: 100, BootWatts: 200, ShutdownWatts: 150, OffWatts: 10, Boot: 2 * time.Minute, Shutdown: time.Minute}
	if got, want := BreakEven(m), 346666666667*time.Nanosecond; got < want-time.Nanosecond || got > want+time.Nanosecond {
		t.Errorf("BreakEven = %v, want %v", got, want)
	}
	if got := BreakEven(energy.DefaultPowerModel()); got != 3*time.Minute {
		t.Errorf("BreakEven of the reference model = %v, want 3m (the cycle)", got)
	}
	m.OffWatts = 100
	if got := BreakEven(m); got != time.Duration(math.MaxInt64) {
		t.Errorf("BreakEven with off = idle = %v, want never", got)
	}
}
