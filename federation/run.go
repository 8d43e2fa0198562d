package federation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/sim"
)

// Member is one cluster of a federation.
type Member struct {
	// Sim is the cluster's simulation: its hosts, scheduler, admission
	// stage, energy. Its Name is the cluster's name.
	Sim sim.Config
	// Speed is the hosts' speed (relative: only ratios between clusters
	// matter), for the rate policies' inputs (dispatch.Spec.Speeds); the
	// simulated hosts themselves have no speed.
	Speed float64
	// Cost breaks earliest-finish's ties (dispatch.Cluster.Cost).
	Cost float64
	// Local are the cluster's local requests.
	Local []scheduler.Request
}

// Setup is one federation run.
type Setup struct {
	// Name names the run (the report's name); the policy by default.
	Name   string
	Policy dispatch.PolicyName
	// Seed seeds pap-rnd's draws.
	Seed     uint64
	Clusters []Member
	// External are the gateway's requests.
	External []scheduler.Request
	// Options are echoed in the overall report.
	Options map[string]string
}

// Run simulates the federation and returns its report: Metrics overall,
// Clusters each cluster's, Gateway the gateway's counts, Leases every
// lease with its cluster. It returns an error wrapping ErrSetup for a
// setup it cannot run, the simulator's errors, and an error wrapping
// sim.ErrStopped when ctx is done.
func Run(ctx context.Context, s Setup) (*report.Report, error) {
	r, _, err := RunClusters(ctx, s)
	return r, err
}

// RunClusters is Run that also returns each cluster's own report, in
// the order of s.Clusters: its leases on its hosts, its power and
// utilisation, as a single-cluster run reports them (for the Gantt
// charts of bora simulate --report).
func RunClusters(ctx context.Context, s Setup) (*report.Report, []*report.Report, error) {
	started := time.Now()
	g, err := newGateway(s)
	if err != nil {
		return nil, nil, fmt.Errorf("gateway %s: %w", s.Policy, err)
	}
	reps, err := g.simulate(ctx, s)
	if err != nil {
		return nil, nil, fmt.Errorf("gateway %s: %w", s.Policy, err)
	}
	out := g.report(s, reps)
	out.Metrics.WallSeconds = time.Since(started).Seconds()
	return out, reps, nil
}

// simulate hands the external requests to the clusters in arrival
// order and finishes every cluster's simulation.
func (g *gateway) simulate(ctx context.Context, s Setup) ([]*report.Report, error) {
	ext := append([]scheduler.Request(nil), s.External...)
	sort.SliceStable(ext, func(i, j int) bool { return ext[i].Arrival < ext[j].Arrival })
	for i, r := range ext {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w at external lease %d of %d: %w", sim.ErrStopped, i, len(ext), context.Cause(ctx))
		}
		if err := g.dispatch(r); err != nil {
			return nil, fmt.Errorf("external lease %q: %w", r.Name, err)
		}
	}
	reps := make([]*report.Report, len(g.steps))
	for j, st := range g.steps {
		var err error
		if reps[j], err = st.Finish(ctx); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", s.Clusters[j].Sim.Name, err)
		}
	}
	return reps, nil
}

// gateway is the run's state: the clusters' simulations and the counts.
type gateway struct {
	steps    []*sim.Stepper
	d        dispatch.Dispatcher
	all      bool // advance every cluster to each arrival (earliest-finish)
	tried    []int
	placed   []int
	refused  []int
	rejected []gatewayRejection
	byReason map[string]int
}

// gatewayRejection is an external request the gateway rejected.
type gatewayRejection struct {
	req    scheduler.Request
	reason string
}

// The gateway's reasons for rejecting a request itself.
const (
	ReasonNoCluster  = "no-cluster"  // the policy gave no cluster (earliest-finish: none meets the deadline)
	ReasonAllRefused = "all-refused" // every cluster in the order refused it
)

func newGateway(s Setup) (*gateway, error) {
	if len(s.Clusters) == 0 {
		return nil, fmt.Errorf("no cluster: %w", ErrSetup)
	}
	newPolicy, err := dispatch.Lookup(string(s.Policy))
	if err != nil {
		return nil, fmt.Errorf("policy %w: %w", err, ErrSetup)
	}
	ds, err := dispatchClusters(s)
	if err != nil {
		return nil, err
	}
	n := len(s.Clusters)
	g := &gateway{all: s.Policy == dispatch.PolicyEarliestFinish, tried: make([]int, n), placed: make([]int, n),
		refused: make([]int, n), byReason: map[string]int{}}
	g.d, err = newPolicy(dispatch.Setup{Clusters: ds, Rate: rate(s.External, span(s)),
		Rand: rand.New(rand.NewPCG(s.Seed, 0x67617465))})
	if err != nil {
		return nil, fmt.Errorf("the policy's inputs (docs/models.md §6): %w", err)
	}
	for _, m := range s.Clusters {
		st, err := sim.NewStepper(m.Sim, m.Local)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", m.Sim.Name, err)
		}
		g.steps = append(g.steps, st)
	}
	return g, nil
}

// dispatch sends one external request: to the policy's first cluster,
// then to the next while the clusters' admission stages refuse it.
func (g *gateway) dispatch(r scheduler.Request) error {
	t := sim.Epoch.Add(r.Arrival)
	l := dispatch.Lease{}
	if g.all {
		for _, st := range g.steps {
			if err := st.AdvanceTo(t); err != nil {
				return err
			}
		}
		l.Answers = make([]dispatch.Answer, len(g.steps))
		for j, st := range g.steps {
			a := st.DryRun(r)
			l.Answers[j] = dispatch.Answer{Rejected: a.State == scheduler.Rejected || a.Start.IsZero(),
				Reason: string(a.Reason), Start: a.Start, End: a.End}
		}
		if r.Deadline > 0 {
			l.Deadline = sim.Epoch.Add(r.Deadline)
		}
	}
	order, err := g.d.Order(l)
	if errors.Is(err, dispatch.ErrNoCluster) {
		g.reject(r, ReasonNoCluster)
		return nil
	}
	if err != nil {
		return err
	}
	for _, j := range order {
		if err := g.steps[j].AdvanceTo(t); err != nil {
			return err
		}
		g.tried[j]++
		ref, err := g.steps[j].Submit(r)
		if err != nil {
			return err
		}
		if ref == nil {
			g.placed[j]++
			return nil
		}
		g.refused[j]++
	}
	g.reject(r, map[bool]string{true: ReasonNoCluster, false: ReasonAllRefused}[len(order) == 0])
	return nil
}

func (g *gateway) reject(r scheduler.Request, reason string) {
	g.rejected = append(g.rejected, gatewayRejection{req: r, reason: reason})
	g.byReason[reason]++
}

// dispatchClusters are the clusters as the policies see them
// (dispatch.NewCluster): host speeds, the local rate and mean sizes
// measured on the local requests, the external mean sizes on the
// gateway's, over the run's span. Without external requests the
// external sizes are taken as 1 VM of 1 s (nothing is dispatched).
func dispatchClusters(s Setup) ([]dispatch.Cluster, error) {
	extVMs, extDur := means(s.External)
	if len(s.External) == 0 {
		extVMs, extDur = 1, 1
	}
	sp := span(s)
	seen := map[string]int{}
	var out []dispatch.Cluster
	for j, m := range s.Clusters {
		name := m.Sim.Name
		if k, dup := seen[name]; dup || name == "" {
			return nil, fmt.Errorf("clusters[%d]: name %q (also clusters[%d]): %w", j, name, k, ErrSetup)
		}
		seen[name] = j
		if !(m.Speed > 0) || math.IsInf(m.Speed, 0) {
			return nil, fmt.Errorf("cluster %s: speed %v is not a positive number: %w", name, m.Speed, ErrSetup)
		}
		speeds := make([]float64, max(m.Sim.Cluster.Hosts, 1))
		for i := range speeds {
			speeds[i] = m.Speed
		}
		lv, ld := means(m.Local)
		c, err := dispatch.NewCluster(dispatch.Spec{Name: name, Speeds: speeds, LocalRate: rate(m.Local, sp),
			ExtVMs: extVMs, ExtDuration: extDur, LocalVMs: lv, LocalDuration: ld, Cost: m.Cost})
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w: %w", name, err, ErrSetup)
		}
		out = append(out, c)
	}
	return out, nil
}

// span is the run's span in seconds: the last arrival of any request
// (1 s when there is none later than 0).
func span(s Setup) float64 {
	last := time.Duration(0)
	for _, r := range s.External {
		last = max(last, r.Arrival)
	}
	for _, m := range s.Clusters {
		for _, r := range m.Local {
			last = max(last, r.Arrival)
		}
	}
	return max(last.Seconds(), 1)
}

// rate is the requests per second over the span.
func rate(reqs []scheduler.Request, span float64) float64 { return float64(len(reqs)) / span }

// means are the mean VMs and requested duration (s) of reqs; 0 for none.
func means(reqs []scheduler.Request) (vms, dur float64) {
	if len(reqs) == 0 {
		return 0, 0
	}
	for _, r := range reqs {
		vms += float64(r.VMs)
		dur += r.Duration.Seconds()
	}
	n := float64(len(reqs))
	return vms / n, dur / n
}
