// Package simconfig turns bora's configuration (package config) into the
// simulator's run configuration (package sim), for `bora simulate` and
// `bora experiment` alike.
package simconfig

import (
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/sim"
)

// Energy is the simulator's energy configuration from the energy section,
// for policy (empty: the configured one; empty again: energy is not
// modelled).
func Energy(e config.Energy, policy string) (sim.EnergyConfig, error) {
	if policy == "" {
		policy = e.Policy
	}
	p, err := e.Params()
	if err != nil {
		return sim.EnergyConfig{}, err
	}
	next, err := e.Cron()
	if err != nil {
		return sim.EnergyConfig{}, err
	}
	return sim.EnergyConfig{Policy: policy, Params: p, Model: e.PowerModel, Tick: e.Tick, Next: next,
		NoConsolidation: !e.Consolidate, ExternalArrivals: e.ExternalArrivals, ViolationAlpha: e.ViolationAlpha, SwitchOffAhead: e.SwitchOffAhead}, nil
}

// Run is the simulator's configuration of one run from cfg as it stands:
// its cluster, scheduler, energy and admission sections, each validated
// (the admission stage only when admission.policy names one).
func Run(cfg config.Config) (sim.Config, error) {
	if err := cfg.Scheduler.Validate(); err != nil {
		return sim.Config{}, err
	}
	ec, err := Energy(cfg.Energy, "")
	if err != nil {
		return sim.Config{}, err
	}
	if err := ec.Validate(); err != nil {
		return sim.Config{}, err
	}
	run := sim.Config{Cluster: cfg.Cluster, Scheduler: cfg.Scheduler, Energy: ec}
	if cfg.Admission.Modelled() {
		ac, err := cfg.Admission.Controller("")
		if err != nil {
			return sim.Config{}, err
		}
		run.Admission = &ac
	}
	return run, nil
}
