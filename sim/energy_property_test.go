package sim

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// Property tests of energy management over random traces. Each case is
// built from one seed; a failing seed replays alone:
//
//	go test ./sim -run TestEnergyProperties -energy.seeds=17 -v
//
// The properties:
//
//	p  no reservation (VMs or an operation on them) ever holds a host that
//	   is not on: every Gantt interval lies in an "on" stretch of its
//	   host's power timeline
//	l  a local advance reservation (requested at least an hour ahead)
//	   starts exactly at its start, and is refused only when the local
//	   leases before it leave too few hosts over its interval, whatever the
//	   energy policy and whether or not PEMP consolidates: energy
//	   management never delays a local lease or refuses it for want of
//	   hosts switched on
//	i  the invariant checker never fires (no panic, the final Check passes)
var energySeeds = flag.String("energy.seeds", "", "seeds TestEnergyProperties runs instead of its fixed list (e.g. 3,17,100-199)")

// energyCase is one random trace with its cluster and settings.
type energyCase struct {
	seed  uint64
	hosts int
	cfg   scheduler.Config
	model energy.PowerModel
	par   energy.Params
	tick  time.Duration
	reqs  []scheduler.Request
}

func (c energyCase) String() string {
	return fmt.Sprintf("seed %d: %d leases on %d hosts; boot %s shutdown %s grace %s tick %s; suspension=%s requeue=%v mapper=%s",
		c.seed, len(c.reqs), c.hosts, c.model.Boot, c.model.Shutdown, c.par.Grace, c.tick, c.cfg.Suspension, c.cfg.Requeue, c.cfg.Mapper)
}

// energyGen draws a case: 3 to 8 single-core hosts; external best-effort
// leases of 1 to 3 VMs (suspendable, migratable or cancellable, running
// 5 min to 3 h, sometimes ending early) and local advance reservations of
// 1 to 3 VMs requested 1 to 6 h ahead.
func energyGen(seed uint64) energyCase {
	rng := rand.New(rand.NewPCG(seed, 0xe4e7))
	c := energyCase{seed: seed, hosts: 3 + rng.IntN(6), cfg: scheduler.DefaultConfig()}
	c.cfg.CheckInvariants = true
	c.cfg.Suspension = pickOne(rng, scheduler.SuspensionAll, scheduler.SuspensionAll, scheduler.SuspensionNone)
	c.cfg.Requeue = rng.IntN(2) == 0
	c.cfg.Mapper = pickOne(rng, "pack", "spread")
	c.model = energy.DefaultPowerModel()
	c.model.Boot = time.Duration(rng.IntN(301)) * time.Second
	c.model.Shutdown = time.Duration(rng.IntN(121)) * time.Second
	c.par = energy.DefaultParams()
	c.par.Grace = time.Duration(rng.IntN(601)) * time.Second
	c.tick = time.Duration(60+rng.IntN(540)) * time.Second
	n := 10 + rng.IntN(30)
	at := time.Duration(0)
	for i := 0; i < n; i++ {
		at += time.Duration(rng.IntN(3600)) * time.Second
		r := scheduler.Request{Name: strconv.Itoa(i), Arrival: at, VMs: 1 + rng.IntN(3), CPU: 100, Memory: 1024}
		if rng.IntN(4) == 0 {
			r.Kind, r.Origin, r.Class = scheduler.AdvanceReservation, scheduler.Local, scheduler.NonPreemptable
			r.Start = at + time.Hour + time.Duration(rng.IntN(5*3600))*time.Second
			r.Duration = time.Duration(600+rng.IntN(7200)) * time.Second
		} else {
			r.Kind, r.Origin = scheduler.BestEffort, scheduler.External
			r.Class = pickOne(rng, scheduler.Suspendable, scheduler.Migratable, scheduler.Cancellable)
			r.Duration = time.Duration(300+rng.IntN(3*3600)) * time.Second
			if rng.IntN(3) == 0 {
				r.Real = r.Duration * time.Duration(1+rng.IntN(9)) / 10
			}
		}
		c.reqs = append(c.reqs, r)
	}
	return c
}

// energyOutcome is one run of a case.
type energyOutcome struct {
	r       *report.Report
	changes []powerChange
	managed bool
}

// run runs the case under policy (consolidating or not), recovering a
// panic of the invariant checker as an error.
func (c energyCase) run(policy string, consolidate, ahead bool) (out energyOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("(i) panic: %v\n%s", p, debug.Stack())
		}
	}()
	cfg := Config{Cluster: Cluster{Hosts: c.hosts, CPU: 100, Memory: 1024}, Scheduler: c.cfg,
		Energy: EnergyConfig{Policy: policy, Params: c.par, Model: c.model, Tick: c.tick, NoConsolidation: !consolidate, SwitchOffAhead: ahead}}
	e, err := newEngine(cfg)
	if err != nil {
		return out, err
	}
	if err := e.loop(context.Background(), c.reqs, 0); err != nil {
		return out, err
	}
	if err := e.s.Check(); err != nil {
		return out, fmt.Errorf("(i) final check: %w", err)
	}
	out.r = e.report(cfg)
	if err := e.power.report(out.r); err != nil {
		return out, fmt.Errorf("(i) meter: %w", err)
	}
	out.changes, out.managed = e.power.changes, e.power.managed
	return out, nil
}

// checkOn is property p.
func checkOn(o energyOutcome) []string {
	if !o.managed {
		return nil
	}
	byHost := map[slottable.HostID][]powerChange{}
	for _, c := range o.changes {
		byHost[c.host] = append(byHost[c.host], c)
	}
	var bad []string
	for _, iv := range o.r.Gantt {
		tl := byHost[slottable.HostID(iv.Host)]
		sort.SliceStable(tl, func(i, j int) bool { return tl[i].at.Before(tl[j].at) })
		state := scheduler.PowerOff
		start, end := Epoch.Add(sec(iv.StartS)), Epoch.Add(sec(iv.EndS))
		for _, c := range tl {
			// The report's seconds are floats: a change within a
			// microsecond of the start (a boot ending at a lease's
			// fractional start) is at the start.
			if !c.at.After(start.Add(time.Microsecond)) {
				state = c.state
			} else if c.at.Before(end) && c.state != scheduler.PowerOn {
				state = c.state
				break
			}
		}
		if state != scheduler.PowerOn && iv.EndS-iv.StartS > 1e-6 {
			bad = append(bad, fmt.Sprintf("(p) lease %d %s [%.3f, %.3f) on host %d, which is %s then", iv.Lease, iv.Kind, iv.StartS, iv.EndS, iv.Host, state))
		}
	}
	return bad
}

// checkLocal is property l: every local lease that starts does so at its
// reservation's start, and one is refused only when the local leases
// accepted before it leave fewer hosts free over its interval than it has
// VMs (hosts are single-core: a VM a host), so that even with every host
// on it could not have been placed. (Which hosts earlier local leases took
// depends on which were on; so a lease refused here may be accepted under
// always-on, and the other way round: that is the hosts' fragmentation,
// not energy management.)
func (c energyCase) checkLocal(name string, r *report.Report) []string {
	reqs := map[string]scheduler.Request{}
	for _, q := range c.reqs {
		reqs[q.Name] = q
	}
	var bad []string
	var earlier []report.Lease
	for _, l := range r.Leases {
		if l.Origin != "local" {
			continue
		}
		q := reqs[l.Name]
		start, end := q.Start.Seconds(), (q.Start + q.Duration).Seconds()
		switch {
		case l.StartS != nil && math.Abs(*l.StartS-start) > 1e-6:
			bad = append(bad, fmt.Sprintf("(l) %s: local lease %s starts at %.3f, not at %.3f", name, l.Name, *l.StartS, start))
		case l.State == "rejected":
			busy := map[int]bool{}
			for _, e := range earlier {
				if *e.StartS < end && *e.EndS > start {
					for _, h := range e.Hosts {
						busy[h] = true
					}
				}
			}
			if free := c.hosts - len(busy); free >= l.VMs {
				bad = append(bad, fmt.Sprintf("(l) %s: local lease %s (%d VMs at %.0f) refused (%s) with %d hosts free of local leases", name, l.Name, l.VMs, start, l.Reason, free))
			}
		}
		if l.StartS != nil && l.EndS != nil {
			earlier = append(earlier, l)
		}
	}
	return bad
}

func energySeedList(t *testing.T) []uint64 {
	if *energySeeds != "" {
		var out []uint64
		for _, part := range strings.Split(*energySeeds, ",") {
			lo, hi, _ := strings.Cut(part, "-")
			a, err := strconv.ParseUint(lo, 10, 64)
			if err != nil {
				t.Fatalf("-energy.seeds: %v", err)
			}
			b := a
			if hi != "" {
				if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
					t.Fatalf("-energy.seeds: %v", err)
				}
			}
			for s := a; s <= b; s++ {
				out = append(out, s)
			}
		}
		return out
	}
	n := uint64(80)
	if testing.Short() {
		n = 12
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i) + 1
	}
	return out
}

func TestEnergyProperties(t *testing.T) {
	for _, seed := range energySeedList(t) {
		c := energyGen(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			var bad []string
			for _, run := range []struct {
				policy             string
				consolidate, ahead bool
			}{{"always-on", true, false}, {"gesp", true, false}, {"sesp", true, false}, {"pemp", true, false}, {"pemp", false, false},
				{"gesp", true, true}, {"sesp", true, true}, {"pemp", true, true}} {
				o, err := c.run(run.policy, run.consolidate, run.ahead)
				if err != nil {
					t.Fatalf("%v\n%s: %v", c, run.policy, err)
				}
				name := run.policy
				if !run.consolidate {
					name += " without consolidation"
				}
				if run.ahead {
					name += " switching off ahead"
				}
				for _, b := range checkOn(o) {
					bad = append(bad, name+": "+b)
				}
				bad = append(bad, c.checkLocal(name, o.r)...)
			}
			if len(bad) > 0 {
				t.Errorf("%v\n  %s", c, strings.Join(bad[:min(len(bad), 12)], "\n  "))
			}
		})
	}
}
