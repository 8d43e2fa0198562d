package daemon

// Metering: the energy every host draws, from its power state and load.

import (
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/energy"
)

func meterState(s string) drivers.PowerState {
	if st, err := energy.ParseState(s); err == nil {
		return st
	}
	return energy.On
}

// meterLoads gives the meter each host's CPU load, the fraction of its
// CPU that leases hold now (used, by host: what the gauges count too); a
// switched-on host draws idle watts plus that fraction of busy minus
// idle.
func (p *powerMgr) meterLoads(now time.Time, used []int64) {
	for i, h := range p.d.hosts {
		if h.CPU <= 0 || i >= len(used) {
			continue
		}
		frac := min(max(float64(used[i])/float64(h.CPU), 0), 1)
		if old, ok := p.loads[h.Name]; ok && old == frac {
			continue
		}
		if err := p.meter.SetLoad(now, h.Name, frac); err != nil {
			continue // not metered (yet)
		}
		p.loads[h.Name] = frac
		p.cached = nil
	}
}

// energy is a host's energy in kWh up to now, with what it drew before
// this start.
func (p *powerMgr) energy(now time.Time, name string) float64 {
	if p.cached == nil || !now.Equal(p.cachedAt) {
		_, p.cached = p.meter.Energy(now)
		p.cachedAt = now
	}
	return p.base[name] + p.cached[name]
}

// flush writes every host's energy so far into its record (before the
// final commit).
func (p *powerMgr) flush(now time.Time) {
	for _, h := range p.d.hosts {
		h.Energy = p.energy(now, h.Name)
	}
}
