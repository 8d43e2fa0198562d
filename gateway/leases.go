package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
)

// StateUnknown is the state the gateway shows a lease in while its
// cluster does not answer, or after the cluster forgot it.
const StateUnknown = "unknown"

// The reasons of a lease in StateUnknown.
const (
	// ReasonClusterDown: the lease's cluster does not answer; the lease
	// is shown as the cluster last answered, in the state unknown.
	ReasonClusterDown scheduler.Reason = "cluster-down"
	// ReasonNotKept: the cluster answers but no longer keeps the lease
	// (its jobs.lease_retention removed it).
	ReasonNotKept scheduler.Reason = "not-kept-by-cluster"
)

// retried says whether a cluster's rejection sends the lease to the next
// cluster: its admission stage said no (docs/models.md §4). Any other
// rejection (too large, a deadline that cannot be met, a bad start) is
// the cluster's answer.
func retried(reason string) bool {
	return reason == string(scheduler.ReasonAdmissionLimit) || reason == string(scheduler.ReasonAvailability)
}

// CreateLease forwards an external lease: to the first cluster of the
// policy's order, then, while a cluster's admission stage refuses it or
// a cluster does not answer, to the next. The map is committed before
// the answer. Every lease through the gateway is external: an empty
// origin is external, local is refused. It returns an error wrapping
// ErrNoCluster (and api.ErrUnavailable) when no cluster is up or none
// answered, and the first cluster's refusal of a bad request.
func (g *Gateway) CreateLease(ctx context.Context, c api.Caller, req api.LeaseRequest) (api.Lease, error) {
	switch req.Origin {
	case "", "external":
		req.Origin = "external"
	default:
		return api.Lease{}, fielderr.New("origin", "%q: the gateway forwards external leases only", req.Origin)
	}
	order, err := g.order(ctx, req)
	if err != nil {
		return api.Lease{}, err
	}
	rec := Record{User: c.User, Submitted: g.now()}
	var last *api.Lease
	for _, m := range order {
		l, err := m.client.CreateLease(ctx, req)
		at := g.now()
		if err != nil {
			if ctx.Err() != nil {
				return api.Lease{}, ctx.Err()
			}
			if !unreachable(err) {
				return api.Lease{}, clusterError(m.cfg.Name, err)
			}
			g.markDown(m, err)
			rec.Tries = append(rec.Tries, Try{At: at, Cluster: m.cfg.Name, Outcome: OutcomeUnreachable, Detail: err.Error()})
			continue
		}
		if l.State == "rejected" && retried(l.Reason) {
			rec.Tries = append(rec.Tries, Try{At: at, Cluster: m.cfg.Name, Outcome: OutcomeRefused, Reason: l.Reason, Detail: l.Detail})
			last = &l
			continue
		}
		rec.Tries = append(rec.Tries, Try{At: at, Cluster: m.cfg.Name, Outcome: OutcomeForwarded})
		rec.Cluster, rec.ClusterID, last = m.cfg.Name, l.ID, &l
		break
	}
	if last == nil {
		return api.Lease{}, fmt.Errorf("%w (%d tried, none answered): %w", ErrNoCluster, len(order), api.ErrUnavailable)
	}
	rec.Last = last
	if err := g.leases.New(&rec); err != nil {
		g.log.WithError(err).WithField("cluster", rec.Cluster).Error("lease map: the lease is on the cluster but not mapped")
		return api.Lease{}, fmt.Errorf("gateway store: %w: %w", err, api.ErrUnavailable)
	}
	g.log.WithFields(logrus.Fields{"lease_id": rec.ID, "cluster": rec.Cluster, "cluster_lease_id": rec.ClusterID,
		"tries": len(rec.Tries)}).Debug("lease forwarded")
	return view(rec, *last), nil
}

// order is the clusters to try for req, best first. earliest-finish
// asks every cluster of the split for a dry run first.
func (g *Gateway) order(ctx context.Context, req api.LeaseRequest) ([]*member, error) {
	g.mu.Lock()
	sp := g.split
	g.mu.Unlock()
	if sp == nil {
		return nil, fmt.Errorf("%w (none is up): %w", ErrNoCluster, api.ErrUnavailable)
	}
	var lease dispatch.Lease
	if dispatch.PolicyName(g.cfg.Policy) == dispatch.PolicyEarliestFinish {
		lease.Answers = g.dryRuns(ctx, sp, req)
	}
	g.mu.Lock()
	idx, err := sp.disp.Order(lease)
	g.mu.Unlock()
	if errors.Is(err, dispatch.ErrNoCluster) {
		return nil, fmt.Errorf("%w: %w", err, api.ErrConflict)
	}
	if err != nil {
		return nil, err
	}
	out := make([]*member, len(idx))
	for i, j := range idx {
		out[i] = g.members[sp.in[j]]
	}
	return out, nil
}

// dryRuns are the clusters' dry-run answers for req, in the split's
// order; a cluster that does not answer counts as rejecting it.
func (g *Gateway) dryRuns(ctx context.Context, sp *split, req api.LeaseRequest) []dispatch.Answer {
	out := make([]dispatch.Answer, len(sp.in))
	var wg sync.WaitGroup
	for i, j := range sp.in {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := g.members[j]
			p, err := m.client.DryRunLease(ctx, req)
			a := dispatch.Answer{Cluster: m.cfg.Name, Cost: m.cfg.Cost}
			switch {
			case err != nil:
				a.Rejected, a.Reason = true, err.Error()
			case p.State == "rejected" || p.End.IsZero():
				a.Rejected, a.Reason = true, strings.TrimSpace(p.Reason+" "+p.Detail)
			default:
				a.Start, a.End = p.Start, p.End
			}
			out[i] = a
		}()
	}
	wg.Wait()
	return out
}

// unreachable says whether err means the cluster did not answer: no
// connection, a timeout, or a 5xx.
func unreachable(err error) bool {
	var ae *api.APIError
	if errors.As(err, &ae) {
		return ae.Status >= http.StatusInternalServerError
	}
	return true
}

// clusterError is a cluster's 4xx answer as the gateway's: a 400 names
// the field again, the others keep their status (errors.Is holds for
// api.ErrNotFound, ErrForbidden, ErrConflict).
func clusterError(name string, err error) error {
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
		field := ae.Field
		if field == "" {
			field = "request"
		}
		return fielderr.New(field, "%s (cluster %s)", strings.TrimPrefix(ae.Message, ae.Field+": "), name)
	}
	return fmt.Errorf("cluster %s: %w", name, err)
}

// view is the cluster's lease l as the gateway shows it: its id and user,
// the cluster's name, and the gateway's tries before the cluster's
// history.
func view(r Record, l api.Lease) api.Lease {
	l.ID, l.User, l.Cluster = r.ID, r.User, r.Cluster
	hist := make([]api.Event, 0, len(r.Tries)+len(l.History))
	for _, t := range r.Tries {
		e := api.Event{At: t.At, State: t.Outcome, Reason: t.Reason, Detail: "cluster " + t.Cluster}
		switch {
		case t.Outcome == OutcomeForwarded:
			e.Detail += fmt.Sprintf(", its lease %d", r.ClusterID)
		case t.Detail != "":
			e.Detail += ": " + t.Detail
		}
		hist = append(hist, e)
	}
	l.History = append(hist, l.History...)
	return l
}

// unknown is the lease of r as last known, in StateUnknown for reason.
func unknown(r Record, reason scheduler.Reason, detail string) api.Lease {
	var l api.Lease
	if r.Last != nil {
		l = *r.Last
	}
	l = view(r, l)
	l.State, l.Reason, l.Detail, l.Plan = StateUnknown, string(reason), detail, nil
	return l
}

// record is lease id for caller c: ErrNotFound when there is none or it
// is another user's (and c is no admin).
func (g *Gateway) record(c api.Caller, id uint64) (Record, error) {
	r, ok, err := g.leases.Get(id)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %w", err, api.ErrUnavailable)
	}
	if !ok || (!c.Admin && r.User != c.User) {
		return Record{}, fmt.Errorf("lease %d: %w", id, api.ErrNotFound)
	}
	return r, nil
}

// memberOf is the member named name, and whether it is up now.
func (g *Gateway) memberOf(name string) (*member, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.members {
		if m.cfg.Name == name {
			return m, m.up
		}
	}
	return nil, false
}

// GetLease is the cluster's view of the lease, or the lease in the state
// unknown while its cluster does not answer.
func (g *Gateway) GetLease(ctx context.Context, c api.Caller, id uint64) (api.Lease, error) {
	r, err := g.record(c, id)
	if err != nil {
		return api.Lease{}, err
	}
	return g.fetch(ctx, r), nil
}

// fetch asks r's cluster for the lease.
func (g *Gateway) fetch(ctx context.Context, r Record) api.Lease {
	if r.Cluster == "" {
		if r.Last == nil {
			return unknown(r, ReasonNotKept, "the gateway has no cluster for it")
		}
		return view(r, *r.Last) // refused by every cluster
	}
	m, up := g.memberOf(r.Cluster)
	if m == nil {
		return unknown(r, ReasonNotKept, fmt.Sprintf("cluster %s is no longer in the gateway's configuration", r.Cluster))
	}
	if !up {
		return unknown(r, ReasonClusterDown, g.downDetail(m, r))
	}
	l, err := m.client.GetLease(ctx, r.ClusterID)
	switch {
	case err == nil:
		return view(r, l)
	case errors.Is(err, api.ErrNotFound):
		return unknown(r, ReasonNotKept, fmt.Sprintf("cluster %s no longer keeps its lease %d", r.Cluster, r.ClusterID))
	case unreachable(err) && ctx.Err() == nil:
		g.markDown(m, err)
	}
	return unknown(r, ReasonClusterDown, g.downDetail(m, r))
}

// downDetail says since when m does not answer.
func (g *Gateway) downDetail(m *member, r Record) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprintf("cluster %s does not answer since %s (%s); the lease is there as its lease %d",
		m.cfg.Name, m.since.UTC().Format("2006-01-02T15:04:05Z"), m.err, r.ClusterID)
}

// ListLeases is the caller's leases (every lease for an admin), each as
// its cluster shows it (one list per cluster that is up) or unknown.
func (g *Gateway) ListLeases(ctx context.Context, c api.Caller, f api.LeaseFilter) ([]api.Lease, error) {
	all, err := g.leases.All()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, api.ErrUnavailable)
	}
	var mine []Record
	need := map[string]bool{}
	for _, r := range all {
		if (c.Admin || r.User == c.User) && (f.User == "" || r.User == f.User) {
			mine = append(mine, r)
			need[r.Cluster] = r.Cluster != ""
		}
	}
	lists := g.clusterLists(ctx, need)
	out := make([]api.Lease, 0, len(mine))
	for _, r := range mine {
		var l api.Lease
		byID, listed := lists[r.Cluster]
		switch cl, ok := byID[r.ClusterID]; {
		case r.Cluster == "":
			l = g.fetch(ctx, r)
		case !listed:
			m, _ := g.memberOf(r.Cluster)
			if m == nil {
				l = g.fetch(ctx, r)
			} else {
				l = unknown(r, ReasonClusterDown, g.downDetail(m, r))
			}
		case ok:
			l = view(r, cl)
		default:
			l = unknown(r, ReasonNotKept, fmt.Sprintf("cluster %s no longer keeps its lease %d", r.Cluster, r.ClusterID))
		}
		if f.State == "" || l.State == f.State {
			out = append(out, l)
		}
	}
	return out, nil
}

// clusterLists lists the leases of each cluster named in need that is up,
// by cluster lease id; a cluster that does not answer is marked down and
// left out.
func (g *Gateway) clusterLists(ctx context.Context, need map[string]bool) map[string]map[uint64]api.Lease {
	out := map[string]map[uint64]api.Lease{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, ok := range need {
		m, up := g.memberOf(name)
		if !ok || m == nil || !up {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ls, err := m.client.ListLeases(ctx, api.LeaseFilter{})
			if err != nil {
				if unreachable(err) && ctx.Err() == nil {
					g.markDown(m, err)
				}
				return
			}
			byID := make(map[uint64]api.Lease, len(ls))
			for _, l := range ls {
				byID[l.ID] = l
			}
			mu.Lock()
			out[name] = byID
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// CancelLease cancels the lease on its cluster.
func (g *Gateway) CancelLease(ctx context.Context, c api.Caller, id uint64) (api.Lease, error) {
	return g.act(ctx, c, id, "cancel")
}

// LeaseAction forwards an admin action; the cluster decides whether the
// gateway's token may do it.
func (g *Gateway) LeaseAction(ctx context.Context, c api.Caller, id uint64, action string) (api.Lease, error) {
	if !c.Admin {
		return api.Lease{}, fmt.Errorf("%s lease %d: needs the admin role: %w", action, id, api.ErrForbidden)
	}
	return g.act(ctx, c, id, action)
}

func (g *Gateway) act(ctx context.Context, c api.Caller, id uint64, action string) (api.Lease, error) {
	r, err := g.record(c, id)
	if err != nil {
		return api.Lease{}, err
	}
	if r.Cluster == "" {
		return api.Lease{}, fmt.Errorf("lease %d was refused by every cluster: %w", id, api.ErrConflict)
	}
	m, up := g.memberOf(r.Cluster)
	if m == nil || !up {
		return api.Lease{}, fmt.Errorf("lease %d: cluster %s does not answer: %w", id, r.Cluster, api.ErrUnavailable)
	}
	var l api.Lease
	if action == "cancel" {
		l, err = m.client.CancelLease(ctx, r.ClusterID)
	} else {
		l, err = m.client.LeaseAction(ctx, r.ClusterID, action)
	}
	if err != nil {
		if unreachable(err) {
			if ctx.Err() == nil {
				g.markDown(m, err)
			}
			return api.Lease{}, fmt.Errorf("lease %d: cluster %s does not answer: %w", id, r.Cluster, api.ErrUnavailable)
		}
		return api.Lease{}, clusterError(r.Cluster, err)
	}
	return view(r, l), nil
}
