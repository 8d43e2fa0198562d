package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/bora-sched/bora/api"
)

// The gateway has no hosts of its own: the host and schedule routes say
// so (404) and name the clusters to ask instead.

func (g *Gateway) noHosts(what string) error {
	names := ""
	for i, m := range g.members {
		if i > 0 {
			names += ", "
		}
		names += m.cfg.Name + " (" + m.cfg.URL + ")"
	}
	return fmt.Errorf("the gateway has no %s; ask a cluster: %s: %w", what, names, api.ErrNotFound)
}

// ListHosts is refused: the gateway has no hosts.
func (g *Gateway) ListHosts(context.Context, api.Caller) ([]api.Host, error) {
	return nil, g.noHosts("hosts")
}

// GetHost is refused: the gateway has no hosts.
func (g *Gateway) GetHost(context.Context, api.Caller, string) (api.Host, error) {
	return api.Host{}, g.noHosts("hosts")
}

// HostAction is refused: the gateway has no hosts.
func (g *Gateway) HostAction(context.Context, api.Caller, string, string) (api.Host, error) {
	return api.Host{}, g.noHosts("hosts")
}

// Schedule is refused: the gateway has no slot table.
func (g *Gateway) Schedule(context.Context, api.Caller, time.Time, time.Time) (api.Schedule, error) {
	return api.Schedule{}, g.noHosts("schedule")
}

// Admission is refused: the admission stages are the clusters'.
func (g *Gateway) Admission(context.Context, api.Caller) (api.Admission, error) {
	return api.Admission{}, g.noHosts("admission stage")
}

// Stats sums the last stats of the clusters that are up: their leases by
// state, queues, hosts and counters (utilisation is over all their
// hosts). Started is when the gateway started.
func (g *Gateway) Stats(context.Context, api.Caller) (api.Stats, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := api.Stats{Now: g.now(), Started: g.started, Leases: map[string]int{}}
	busy := 0.0
	for _, m := range g.members {
		if !m.up {
			continue
		}
		s := m.stats
		for k, n := range s.Leases {
			out.Leases[k] += n
		}
		out.Queue += s.Queue
		out.Preemptions += s.Preemptions
		out.PreemptedVMs += s.PreemptedVMs
		out.OverheadS += s.OverheadS
		out.Rejected += s.Rejected
		out.Hosts += s.Hosts
		out.HostsOn += s.HostsOn
		out.EnergyKWh += s.EnergyKWh
		out.Decisions += s.Decisions
		busy += s.Utilisation * float64(s.Hosts)
	}
	if out.Hosts > 0 {
		out.Utilisation = busy / float64(out.Hosts)
	}
	return out, nil
}

// Health is nil while at least one cluster is up.
func (g *Gateway) Health(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.members {
		if m.up {
			return nil
		}
	}
	return fmt.Errorf("no cluster answers: %w", api.ErrUnavailable)
}
