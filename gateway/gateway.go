package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/fielderr"
)

// Options build a Gateway.
type Options struct {
	Config Config
	// Log is where the gateway logs (nil: nowhere).
	Log *logrus.Entry
	// Now is the wall clock (nil: time.Now): the times of the tries and
	// of the clusters' states.
	Now func() time.Time
	// StoreTimeout bounds the wait for the lease map's file lock (0: 1 s).
	StoreTimeout time.Duration
}

// member is one cluster behind the gateway and what the gateway knows of
// it.
type member struct {
	cfg    Cluster
	client *api.Client

	// Guarded by Gateway.mu.
	up     bool
	polled bool      // answered or failed at least once
	since  time.Time // of the last change of up
	err    string    // why it is down
	stats  api.Stats // the last answer
}

// Gateway is the gateway daemon's core: an api.Service over the
// clusters. Its methods are safe for concurrent use.
type Gateway struct {
	cfg     Config
	log     *logrus.Entry
	now     func() time.Time
	leases  *Map
	started time.Time
	members []*member

	mu   sync.Mutex
	rand *rand.Rand // pap-rnd's source, kept across rebuilds
	// split is the dispatcher over the clusters that are up, in. in[i]
	// is the index into members of the dispatcher's cluster i.
	split *split
}

// split is one build of the dispatcher.
type split struct {
	disp   dispatch.Dispatcher
	in     []int
	inputs []dispatch.Cluster
	rate   float64
}

var _ api.Service = (*Gateway)(nil)

// New builds the gateway: it opens the lease map and builds a client per
// cluster. The clusters count as down until the first poll (Poll, which
// Run does first).
func New(o Options) (*Gateway, error) {
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if err := o.Config.CheckFiles(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		o.Log = logrus.NewEntry(l)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StoreTimeout <= 0 {
		o.StoreTimeout = time.Second
	}
	g := &Gateway{cfg: o.Config, log: o.Log.WithField("component", "gateway"), now: o.Now,
		rand: rand.New(rand.NewPCG(o.Config.Seed, 0x6761746577617921))}
	for i, cl := range o.Config.Clusters {
		c, err := api.NewClient(api.ClientOptions{Server: cl.URL, Token: cl.Token, CACert: cl.CA, Timeout: o.Config.Timeout})
		if err != nil {
			return nil, fielderr.Wrap(ErrConfig, fmt.Sprintf("clusters[%d].ca", i), "cluster %s: %v", cl.Name, err)
		}
		g.members = append(g.members, &member{cfg: cl, client: c})
	}
	m, err := OpenMap(o.Config.Store, o.StoreTimeout)
	if err != nil {
		return nil, err
	}
	g.leases = m
	g.started = g.now()
	return g, nil
}

// Close closes the lease map.
func (g *Gateway) Close() error { return g.leases.Close() }

// Run polls the clusters every poll period and computes the split again
// every recompute period, until ctx ends. Serve polls once before it
// answers, so that the first leases find the clusters up.
func (g *Gateway) Run(ctx context.Context) error {
	g.log.WithFields(logrus.Fields{"clusters": len(g.members), "policy": g.cfg.Policy,
		"poll": g.cfg.Poll, "recompute": g.cfg.Recompute}).Info("gateway started")
	poll := time.NewTicker(g.cfg.Poll)
	defer poll.Stop()
	recompute := time.NewTicker(g.cfg.Recompute)
	defer recompute.Stop()
	for {
		select {
		case <-ctx.Done():
			g.log.Info("gateway stopped")
			return nil
		case <-poll.C:
			g.Poll(ctx)
		case <-recompute.C:
			g.Recompute()
		}
	}
}

// Poll reads every cluster's stats (in parallel, each bounded by the
// configured timeout). A cluster that answers is up, one that does not
// is down; when a cluster changes state the split is computed again.
func (g *Gateway) Poll(ctx context.Context) {
	type answer struct {
		st  api.Stats
		err error
	}
	answers := make([]answer, len(g.members))
	var wg sync.WaitGroup
	for i, m := range g.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := m.client.Stats(ctx)
			answers[i] = answer{st, err}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	changed := false
	g.mu.Lock()
	for i, m := range g.members {
		a := answers[i]
		if a.err == nil {
			m.stats = a.st
		}
		changed = g.setUp(m, a.err) || changed
	}
	if changed || g.split == nil {
		g.rebuild()
	}
	g.mu.Unlock()
}

// Recompute computes the split again from the last stats.
func (g *Gateway) Recompute() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rebuild()
}

// markDown takes m out of the split after a request it did not answer.
func (g *Gateway) markDown(m *member, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.setUp(m, err) {
		g.rebuild()
	}
}

// setUp records that m answered (err nil) or not, and reports whether its
// state changed. g.mu is held.
func (g *Gateway) setUp(m *member, err error) bool {
	up := err == nil
	first := !m.polled
	m.polled = true
	if up == m.up && !first {
		if !up {
			m.err = err.Error()
		}
		return false
	}
	m.up, m.since = up, g.now()
	log := g.log.WithField("cluster", m.cfg.Name)
	if up {
		m.err = ""
		log.Info("cluster up: in the split")
	} else {
		m.err = err.Error()
		log.WithError(err).Warn("cluster does not answer: out of the split")
	}
	return true
}

// rebuild builds the dispatcher over the clusters that are up. A policy
// that cannot be built (every cluster saturated by its local load) falls
// back to round robin over them, logged. g.mu is held.
func (g *Gateway) rebuild() {
	var in []int
	var inputs []dispatch.Cluster
	var stats []api.Stats
	for i, m := range g.members {
		if !m.up {
			continue
		}
		c, src, err := Inputs(m.cfg, g.cfg.Model, m.stats)
		if err != nil {
			g.log.WithField("cluster", m.cfg.Name).WithError(err).Warn("cluster left out of the split: its inputs are not usable")
			continue
		}
		g.log.WithFields(logrus.Fields{"cluster": m.cfg.Name, "inputs": src.String(), "hosts": c.Hosts,
			"lambda": c.Lambda, "theta": c.Theta, "tau": c.Tau}).Debug("cluster inputs")
		in, inputs, stats = append(in, i), append(inputs, c), append(stats, m.stats)
	}
	if len(in) == 0 {
		g.split = nil
		g.log.Warn("no cluster is up: leases are refused until one answers")
		return
	}
	rate := ExternalRate(g.cfg.Model, stats)
	if capacity := Capacity(inputs); rate >= capacity && capacity > 0 {
		g.log.WithFields(logrus.Fields{"rate": rate, "capacity": capacity}).
			Warn("external rate at or beyond the clusters' capacity: split computed at 95% of it")
		rate = overloadShare * capacity
	}
	setup := dispatch.Setup{Clusters: inputs, Rate: rate, Rand: g.rand}
	newPolicy, _ := dispatch.Lookup(g.cfg.Policy) // checked by Validate
	d, err := newPolicy(setup)
	if err != nil {
		g.log.WithError(err).Error("the policy cannot split over these clusters: round robin instead")
		if d, err = dispatch.Policies[dispatch.PolicyRR](setup); err != nil {
			g.split = nil
			g.log.WithError(err).Error("no split: leases are refused")
			return
		}
	}
	g.split = &split{disp: d, in: in, inputs: inputs, rate: rate}
	fields := logrus.Fields{"policy": g.cfg.Policy, "rate": rate}
	if shares, err := Shares(g.cfg.Policy, inputs, rate); err == nil {
		for i, j := range in {
			fields["share_"+g.members[j].cfg.Name] = shares[i]
		}
	}
	g.log.WithFields(fields).Info("split computed")
}

// Shares are the shares of the rate policies (pap-rnd and pap-rtdp:
// PAP's; lrf, bcf; rr: equal) over cs at rate, for the log and for tests.
// earliest-finish has none (an error).
func Shares(policy string, cs []dispatch.Cluster, rate float64) ([]float64, error) {
	switch dispatch.PolicyName(policy) {
	case dispatch.PolicyPAPRND, dispatch.PolicyPAPRTDP:
		split, err := dispatch.PAP(cs, rate)
		if err != nil {
			return nil, err
		}
		for j := range split {
			split[j] /= rate
		}
		return split, nil
	case dispatch.PolicyLRF:
		return dispatch.LeastRateFirst(cs)
	case dispatch.PolicyBCF:
		return dispatch.BiggestClusterFirst(cs)
	case dispatch.PolicyRR:
		out := make([]float64, len(cs))
		for j := range out {
			out[j] = 1 / float64(len(cs))
		}
		return out, nil
	}
	return nil, errors.New("earliest-finish has no shares")
}

// ClusterState is what the gateway knows of one cluster now.
type ClusterState struct {
	Name  string
	Up    bool
	Since time.Time
	Error string
}

// Clusters are the clusters' states, in the configuration's order.
func (g *Gateway) Clusters() []ClusterState {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]ClusterState, len(g.members))
	for i, m := range g.members {
		out[i] = ClusterState{Name: m.cfg.Name, Up: m.up, Since: m.since, Error: m.err}
	}
	return out
}
