package sim

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/energyctl"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// EnergyConfig is the energy management of a run (docs/models.md §5).
type EnergyConfig struct {
	// Policy is always-on, gesp, sesp or pemp (energy.Policies); empty:
	// no energy management and no energy metrics. always-on keeps every
	// host on but reports the energy they use and the violation rate.
	Policy string
	Params energy.Params     // Alpha (waiting factor), Grace (idle time before a host is switched off), Fuzzy
	Model  energy.PowerModel // watts per state, boot and shutdown times
	// Tick is the period of the energy controller's cron (0: 5 minutes).
	Tick time.Duration
	// Next, when set, is the controller's cron instead of Tick: the time
	// of the tick after a given time (energy.schedule).
	Next func(time.Time) time.Time
	// NoConsolidation makes PEMP never empty hosts to switch them off
	// (for experiments: what consolidation changes).
	NoConsolidation bool
	// ExternalArrivals has the policy decide on each arriving external
	// lease as well (not in docs/models.md §5; for experiments).
	ExternalArrivals bool
	// ViolationAlpha, when positive, is the factor of the violation
	// rate's threshold instead of Params.Alpha (runs at different waiting
	// factors measured against one threshold); 0: Params.Alpha.
	ViolationAlpha float64
	// SwitchOffAhead lets the policies switch off a host with a
	// reservation at least energyctl.BreakEven(Model) ahead, its boot
	// planned to end when the reservation begins (docs/models.md §5).
	SwitchOffAhead bool
}

// DefaultTick is the period of the energy controller when none is set.
const DefaultTick = energyctl.DefaultTick

// Validate checks the policy name, the parameters and the power model.
func (c EnergyConfig) Validate() error {
	if c.Policy == "" {
		return nil
	}
	if _, err := energy.NewPolicy(c.Policy, c.Params); err != nil {
		return fmt.Errorf("energy.%w", err)
	}
	if err := c.Model.Validate(); err != nil {
		return fmt.Errorf("energy.%w", err)
	}
	if c.Tick < 0 {
		return fmt.Errorf("energy.tick: must not be negative, got %s", c.Tick)
	}
	if !(c.ViolationAlpha >= 0) {
		return fmt.Errorf("energy.violation_alpha: must not be negative, got %v", c.ViolationAlpha)
	}
	return nil
}

// powerCtl is the energy management of a run: the controller (package
// energyctl), which decides and switches hosts through the scheduler,
// and the record of every power transition it made, for the meter and
// the report. With a managed policy every host starts off; hosts switched
// on at the epoch are on at once (the trace begins with them running).
type powerCtl struct {
	e       *engine
	cfg     EnergyConfig
	ctl     *energyctl.Controller
	managed bool
	changes []powerChange
}

// powerChange is host h entering a power state at a time.
type powerChange struct {
	at    time.Time
	host  slottable.HostID
	state scheduler.PowerState
}

// PowerStats counts what the energy controller did in a run.
type PowerStats = energyctl.Stats

// newPowerCtl builds the energy management of a run (nil without).
func newPowerCtl(e *engine, cfg EnergyConfig) (*powerCtl, error) {
	if cfg.Policy == "" {
		return nil, nil
	}
	pol, err := energy.NewPolicy(cfg.Policy, cfg.Params)
	if err != nil {
		return nil, err
	}
	p := &powerCtl{e: e, cfg: cfg}
	p.ctl = energyctl.New(e.s, energyctl.Config{Policy: pol, Alpha: cfg.Params.Alpha, Tick: cfg.Tick, Next: cfg.Next,
		Start: Epoch, Instant: Epoch, NoConsolidation: cfg.NoConsolidation, ExternalArrivals: cfg.ExternalArrivals,
		SwitchOffAhead: cfg.SwitchOffAhead, AheadMinGap: energyctl.BreakEven(cfg.Model),
		Hooks: energyctl.Hooks{SwitchedOn: p.switchedOn, SwitchedOff: p.switchedOff}})
	p.managed = p.ctl.Managed()
	e.s.SetPowerTimes(cfg.Model.Boot, cfg.Model.Shutdown)
	if p.managed {
		for h := 0; h < e.cfg.Cluster.Hosts; h++ {
			if err := e.s.MarkOff(Epoch, slottable.HostID(h)); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// switchedOn records a boot, replacing the one it moved earlier.
func (p *powerCtl) switchedOn(h slottable.HostID, boot, ready, prevBoot, prevReady time.Time) {
	if !prevReady.IsZero() {
		keep := p.changes[:0]
		for _, c := range p.changes {
			if c.host == h && ((c.state == scheduler.PowerBooting && c.at.Equal(prevBoot)) || (c.state == scheduler.PowerOn && c.at.Equal(prevReady))) {
				continue
			}
			keep = append(keep, c)
		}
		p.changes = keep
	}
	p.changes = append(p.changes, powerChange{boot, h, scheduler.PowerBooting}, powerChange{ready, h, scheduler.PowerOn})
}

// switchedOff records a shutdown.
func (p *powerCtl) switchedOff(h slottable.HostID, now time.Time) {
	p.changes = append(p.changes, powerChange{now, h, scheduler.PowerShuttingDown},
		powerChange{now.Add(p.cfg.Model.Shutdown), h, scheduler.PowerOff})
}

// record feeds the controller the reservations as they end.
func (p *powerCtl) record(iv scheduler.Interval) {
	if p != nil {
		p.ctl.Record(iv)
	}
}

// nextAt is the controller's next tick, while something is going on.
func (p *powerCtl) nextAt(busy bool) (time.Time, bool) {
	if p == nil {
		return time.Time{}, false
	}
	return p.ctl.NextAt(busy)
}

// beforeSubmit runs the controller for an arriving local lease.
func (p *powerCtl) beforeSubmit(now time.Time, req scheduler.Request) []scheduler.Action {
	if p == nil {
		return nil
	}
	return p.ctl.BeforeSubmit(now, req)
}

// step runs the controller after the arrivals of each time the loop
// stops at.
func (p *powerCtl) step(now time.Time, quiet func() bool) []scheduler.Action {
	if p == nil {
		return nil
	}
	return p.ctl.Step(now, quiet)
}

// quiet reports that nothing will ever happen in the run again by itself
// (the caller knows no arrival is left): no scheduler event, no lease
// running.
func (e *engine) quiet() bool {
	if _, ok := e.s.NextEvent(); ok {
		return false
	}
	for _, end := range e.ends {
		if st := e.real[end.lease]; st != nil && st.running && st.gen == end.gen {
			return false
		}
	}
	return true
}
