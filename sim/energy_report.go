package sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/powerstate"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// meterEvent is one change the meter is told about: a host's power state,
// or (state empty) its CPU in use.
type meterEvent struct {
	at    time.Time
	host  slottable.HostID
	state scheduler.PowerState
	cpu   int64 // change of the CPU in use, when state is empty
	seq   int   // order of recording, for events at the same time
}

// report integrates the power of the run from the epoch to its makespan
// (the last end of a lease done) with an energy.Meter fed every power transition and, when
// idle and busy watts differ, every change of each host's CPU in use
// (from the Gantt intervals); it fills energy_kwh, violation_rate, the
// power samples and the controller's counts.
func (p *powerCtl) report(r *report.Report) error {
	if p == nil {
		return nil
	}
	end := Epoch
	for _, l := range p.e.s.Leases() {
		if l.State == scheduler.Done && l.End.After(end) {
			end = l.End
		}
	}
	n := p.e.cfg.Cluster.Hosts
	names := make([]string, n)
	for _, h := range p.e.s.Table().Hosts() {
		names[h.ID] = h.Name
	}
	initial := energy.On
	if p.managed {
		initial = energy.Off
	}
	m, err := energy.NewMeter(p.cfg.Model, names, Epoch, initial)
	if err != nil {
		return err
	}
	on := 0
	if !p.managed {
		on = n
	}
	samples := []report.PowerSample{{T: 0, Watts: m.Watts(), HostsOn: on}}
	events := p.meterEvents(end)
	used := make([]int64, n)
	for i, ev := range events {
		if ev.state != "" {
			before, _ := m.State(names[ev.host])
			if err := m.Set(ev.at, names[ev.host], powerstate.State(ev.state)); err != nil {
				return fmt.Errorf("energy meter: %w", err)
			}
			on += b2i(ev.state == scheduler.PowerOn) - b2i(before == energy.On && ev.state != scheduler.PowerOn)
		} else {
			used[ev.host] += ev.cpu
			frac := min(1, max(0, float64(used[ev.host])/float64(p.e.cfg.Cluster.CPU)))
			if err := m.SetLoad(ev.at, names[ev.host], frac); err != nil {
				return fmt.Errorf("energy meter: %w", err)
			}
		}
		if i+1 == len(events) || events[i+1].at.After(ev.at) {
			kwh, _ := m.Energy(ev.at)
			samples = append(samples, report.PowerSample{T: secs(ev.at), Watts: m.Watts(), HostsOn: on, KWh: kwh})
		}
	}
	kwh, _ := m.Energy(end)
	samples = append(samples, report.PowerSample{T: secs(end), Watts: m.Watts(), HostsOn: on, KWh: kwh})
	r.Power = samples
	r.Metrics.EnergyKWh = &kwh
	rate, threshold := p.violations()
	pct := rate * 100
	r.Metrics.ViolationRate = &pct
	st := p.ctl.Stats()
	r.Energy = &report.EnergyStats{Policy: p.cfg.Policy, Decisions: st.Decisions, SwitchedOn: st.SwitchedOn,
		Guarded: st.Guarded, Drained: st.Drained, SwitchedOff: st.SwitchedOff,
		Consolidated: st.Consolidated, OffAhead: st.OffAhead, ForRestart: st.ForRestart, MeanHostsOn: meanHostsOn(samples), ThresholdS: threshold.Seconds()}
	if p.managed {
		idle := p.idleTime(end)
		r.Energy.Idle = &idle
	}
	return nil
}

// meterEvents lists the power transitions up to end and, when the power
// depends on the load, the changes of each host's CPU in use, in time
// order (a host's own changes keep the order they were recorded in).
func (p *powerCtl) meterEvents(end time.Time) []meterEvent {
	var evs []meterEvent
	for _, c := range p.changes {
		if !c.at.After(end) {
			evs = append(evs, meterEvent{at: c.at, host: c.host, state: c.state, seq: len(evs)})
		}
	}
	if p.cfg.Model.IdleWatts != p.cfg.Model.BusyWatts {
		for iv := range p.e.gantt.all() {
			if iv.CPU == 0 || iv.Start.After(end) {
				continue
			}
			evs = append(evs, meterEvent{at: iv.Start, host: iv.Host, cpu: iv.CPU, seq: len(evs)})
			if !iv.End.After(end) {
				evs = append(evs, meterEvent{at: iv.End, host: iv.Host, cpu: -iv.CPU, seq: len(evs)})
			}
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if !evs[i].at.Equal(evs[j].at) {
			return evs[i].at.Before(evs[j].at)
		}
		// At one instant, loads leave before they arrive (a host is never
		// seen over its capacity), after the power changes.
		a, b := evs[i], evs[j]
		if (a.state == "") != (b.state == "") {
			return a.state != ""
		}
		return a.cpu < b.cpu
	})
	return evs
}

// violations is the waiting-threshold violation rate over the external
// leases that started: a wait is first start minus submission, a
// duration the requested one. The threshold's factor is the run's
// waiting factor, or ViolationAlpha when set.
func (p *powerCtl) violations() (float64, time.Duration) {
	var fin []energy.Finished
	for _, l := range p.e.s.Leases() {
		if l.Req.Origin != scheduler.External || l.FirstStart.IsZero() {
			continue
		}
		fin = append(fin, energy.Finished{Wait: l.FirstStart.Sub(l.Submitted), Duration: l.Req.Duration})
	}
	alpha := p.cfg.Params.Alpha
	if p.cfg.ViolationAlpha > 0 {
		alpha = p.cfg.ViolationAlpha
	}
	return energy.ViolationRate(fin, alpha)
}

// meanHostsOn is the time-weighted mean of the hosts on over the samples.
func meanHostsOn(samples []report.PowerSample) float64 {
	var area float64
	for i := 1; i < len(samples); i++ {
		area += float64(samples[i-1].HostsOn) * (samples[i].T - samples[i-1].T)
	}
	if span := samples[len(samples)-1].T - samples[0].T; span > 0 {
		return area / span
	}
	return float64(samples[0].HostsOn)
}
