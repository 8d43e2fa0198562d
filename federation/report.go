package federation

import (
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// report is the federation's report from the clusters' (reps, in the
// order of s.Clusters).
func (g *gateway) report(s Setup, reps []*report.Report) *report.Report {
	name := s.Name
	if name == "" {
		name = string(s.Policy)
	}
	out := &report.Report{Name: name, Options: s.Options,
		Gateway: &report.Gateway{Policy: string(s.Policy), External: len(s.External), Rejected: len(g.rejected), Rejections: g.byReason}}
	for j, r := range reps {
		out.Trace = joinTrace(out.Trace, r.Trace)
		out.Hosts += r.Hosts
		out.Cluster.Hosts += r.Cluster.Hosts
		rejected := 0
		for _, l := range r.Leases {
			rejected += b2i(l.State == string(scheduler.Rejected))
			l.Cluster = r.Name
			out.Leases = append(out.Leases, l)
		}
		out.Clusters = append(out.Clusters, report.ClusterReport{Name: r.Name, Cluster: r.Cluster, Metrics: r.Metrics,
			Tried: g.tried[j], Placed: g.placed[j], Refused: g.refused[j], Rejected: rejected})
	}
	for _, x := range g.rejected {
		out.Leases = append(out.Leases, report.Lease{Name: x.req.Name, Kind: string(x.req.Kind), Class: string(x.req.Class),
			Origin: string(x.req.Origin), VMs: x.req.VMs, State: string(scheduler.Rejected), SubmitS: x.req.Arrival.Seconds(),
			Hosts: []int{}, Reason: "gateway: " + x.reason, RequestedS: x.req.Duration.Seconds(), RealS: x.req.RealDuration().Seconds()})
	}
	out.Metrics = Overall(reps, len(g.rejected))
	return out
}

func joinTrace(a, b string) string {
	if a == "" || a == b {
		return b
	}
	return a + ", " + b
}

// Overall is the federation's metrics from its clusters' reports and the
// external leases the gateway rejected (gwRejected), by the rules of
// docs/experiments.md ("Multi-cluster experiments"): counts are summed
// (leases with the gateway's rejections), the makespan is the longest,
// and each rate or mean is the clusters' weighted by what it is taken
// over, which recomputes it from the summed counts: the external
// rejection rate and completed percent count the gateway's rejections
// among the external leases. The energy and admission metrics are there
// when every cluster has them.
func Overall(reps []*report.Report, gwRejected int) report.Metrics {
	m := report.Metrics{PreemptedByOp: map[string]report.OpCount{}, PreemptionSearch: map[string]int{}}
	var w weights
	energy, violation, adm := true, true, true
	for _, r := range reps {
		c := r.Metrics
		m.Leases += c.Leases
		m.Completed += c.Completed
		m.PreemptedLeases += c.PreemptedLeases
		m.PreemptedVMs += c.PreemptedVMs
		m.PreemptionOverheadS += c.PreemptionOverheadS
		m.DeadlineMisses += c.DeadlineMisses
		m.MakespanS = max(m.MakespanS, c.MakespanS)
		for op, n := range c.PreemptedByOp {
			o := m.PreemptedByOp[op]
			o.Leases, o.VMs = o.Leases+n.Leases, o.VMs+n.VMs
			m.PreemptedByOp[op] = o
		}
		for k, n := range c.PreemptionSearch {
			m.PreemptionSearch[k] += n
		}
		energy = energy && c.EnergyKWh != nil
		violation = violation && c.ViolationRate != nil
		adm = adm && c.AdmissionViolationRate != nil
		w.add(r)
	}
	ext := w.ext + float64(gwRejected)
	m.Leases += gwRejected
	m.LocalRejectionRate = w.mean(func(c *clusterWeights) float64 { return c.m.LocalRejectionRate * c.local }, w.local)
	m.ExternalRejectionRate = (w.mean(func(c *clusterWeights) float64 { return c.m.ExternalRejectionRate * c.ext }, 1) + 100*float64(gwRejected)) / nonZero(ext)
	m.ExternalCompletedPercent = w.mean(func(c *clusterWeights) float64 { return c.m.ExternalCompletedPercent * c.ext }, 1) / nonZero(ext)
	m.MigrationRate = w.mean(func(c *clusterWeights) float64 { return c.m.MigrationRate * c.migratable }, w.migratable)
	m.ARTS = w.mean(func(c *clusterWeights) float64 { return c.m.ARTS * c.doneBE }, w.doneBE)
	m.AWRTS = w.mean(func(c *clusterWeights) float64 { return c.m.AWRTS * c.work }, w.work)
	m.Utilisation = w.mean(func(c *clusterWeights) float64 { return c.m.Utilisation * c.capacity }, w.capacity)
	m.UtilisationOverheadAdj = w.mean(func(c *clusterWeights) float64 { return c.m.UtilisationOverheadAdj * c.computed }, w.computed)
	if energy && len(reps) > 0 {
		e := 0.0
		for _, r := range reps {
			e += *r.Metrics.EnergyKWh
		}
		m.EnergyKWh = &e
	}
	if violation && len(reps) > 0 {
		v := w.mean(func(c *clusterWeights) float64 { return *c.m.ViolationRate * c.startedExt }, w.startedExt)
		m.ViolationRate = &v
	}
	if adm && len(reps) > 0 {
		vr := w.mean(func(c *clusterWeights) float64 { return *c.m.AdmissionViolationRate * c.ext }, w.ext)
		rr := w.mean(func(c *clusterWeights) float64 { return *c.m.AdmissionRejectionRate * c.ext }, w.ext)
		d := w.mean(func(c *clusterWeights) float64 { return *c.m.AdmissionThresholdS * c.ext }, w.ext)
		m.AdmissionViolationRate, m.AdmissionRejectionRate, m.AdmissionThresholdS = &vr, &rr, &d
	}
	for _, r := range reps {
		for k, n := range r.Metrics.ExternalRejections {
			if m.ExternalRejections == nil {
				m.ExternalRejections = map[string]int{}
			}
			m.ExternalRejections[k] += n
		}
	}
	return m
}

func nonZero(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// clusterWeights are what one cluster's rates and means are taken over.
type clusterWeights struct {
	m                                    report.Metrics
	local, ext, migratable, doneBE       float64
	work, capacity, computed, startedExt float64
}

// weights are every cluster's, with their sums.
type weights struct {
	cs []*clusterWeights
	clusterWeights
}

func (w *weights) add(r *report.Report) {
	c := &clusterWeights{m: r.Metrics}
	for _, l := range r.Leases {
		switch {
		case l.Origin == string(scheduler.Local):
			c.local++
		case l.Origin == string(scheduler.External):
			c.ext++
			if l.StartS != nil {
				c.startedExt++
			}
		}
		if l.Class == string(scheduler.Migratable) {
			c.migratable++
		}
		if l.State == string(scheduler.Done) && l.Kind == string(scheduler.BestEffort) {
			c.doneBE++
			c.work += float64(l.VMs) * l.RealS
		}
	}
	c.capacity = float64(r.Cluster.Hosts) * r.Cluster.CPU * r.Metrics.MakespanS
	c.computed = r.Metrics.Utilisation / 100 * c.capacity
	w.cs = append(w.cs, c)
	w.local += c.local
	w.ext += c.ext
	w.startedExt += c.startedExt
	w.migratable += c.migratable
	w.doneBE += c.doneBE
	w.work += c.work
	w.capacity += c.capacity
	w.computed += c.computed
}

// mean is the sum of num over the clusters divided by den (0 when den
// is 0).
func (w *weights) mean(num func(*clusterWeights) float64, den float64) float64 {
	if den == 0 {
		return 0
	}
	s := 0.0
	for _, c := range w.cs {
		s += num(c)
	}
	return s / den
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
