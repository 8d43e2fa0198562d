package energyctl

import (
	"math"
	"time"

	"github.com/bora-sched/bora/energy"
)

// BreakEven is the shortest gap G before a host's next reservation for
// which switching it off now and booting it in time uses less energy than
// keeping it on idle (docs/models.md §5):
//
//	kept on:      idle × G
//	switched off: shutdown_w × Ts + off_w × (G − Ts − Tb) + boot_w × Tb
//	pays when     G > ((shutdown_w − off_w) × Ts + (boot_w − off_w) × Tb) / (idle − off_w)
//
// and never less than Ts + Tb (the cycle must fit). A model in which an
// off host draws as much as an idle one never pays: the result is then
// about 290 years, beyond any schedule.
func BreakEven(m energy.PowerModel) time.Duration {
	cycle := m.Shutdown + m.Boot
	saved := m.IdleWatts - m.OffWatts // watts saved while off
	if !(saved > 0) {
		return time.Duration(math.MaxInt64)
	}
	cost := (m.ShutdownWatts-m.OffWatts)*m.Shutdown.Seconds() + (m.BootWatts-m.OffWatts)*m.Boot.Seconds()
	g := time.Duration(math.Ceil(cost / saved * float64(time.Second)))
	return max(g, cycle)
}
