package gateway

import (
	"fmt"
	"strings"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/dispatch"
)

// The model's inputs of a cluster (docs/models.md §6), read as the
// admission stage reads a cluster (docs/models.md §4, "the cluster as one
// server"): a lease's service time is its run time times its share of
// the cluster.
//
//   - M_j, the hosts: the cluster's stats (Stats.Hosts), or the
//     configuration's hosts when it sets them.
//   - Power = M_j x speed, speed being the configuration's factor.
//   - lambda_j: the admission stage's local rate once its rates are
//     estimated; before, the configuration's local_rate.
//   - theta_j: the stage's external service time (run x share, as the
//     cluster measured it) once estimated; before,
//     external_vms x external_run / (M_j x speed), the share of one-core
//     hosts times a run scaled by the speed factor.
//   - tau_j and the local cv: the stage's local service time and cv once
//     estimated; before, local_vms x local_run / (M_j x speed) and the
//     reference cv 0.1.
//   - omega_j = (0.5 theta_j)^2 + theta_j^2 (the reference external cv:
//     the stage does not estimate it), mu_j = (cv tau_j)^2 + tau_j^2.
//
// The external rate Lambda is the sum of the clusters' estimated
// external rates when at least one cluster has its rates estimated and
// the sum is positive (a refused lease counts at each cluster that
// refused it, so retries make it larger than the gateway's own rate),
// else the configuration's model.external_rate.

// Source says which of a cluster's inputs are estimated by its admission
// stage; the others are the configuration's fallbacks.
type Source struct {
	Rates, External, Local bool
}

// String is like "rates:estimated external:fallback local:fallback".
func (s Source) String() string {
	f := func(b bool) string {
		if b {
			return "estimated"
		}
		return "fallback"
	}
	return fmt.Sprintf("rates:%s external:%s local:%s", f(s.Rates), f(s.External), f(s.Local))
}

// sourceOf reads which inputs the stage has estimated from its Warming
// list (admission.Estimator.Estimate writes one entry per input not
// estimated yet, starting "arrival rates", "external service time" and
// "local service time"). Without an admission stage nothing is.
func sourceOf(a *api.Admission) Source {
	if a == nil {
		return Source{}
	}
	s := Source{Rates: true, External: a.Inputs.ExternalMeanS > 0, Local: true}
	for _, w := range a.Warming {
		switch {
		case strings.HasPrefix(w, "arrival rates"):
			s.Rates = false
		case strings.HasPrefix(w, "external service time"):
			s.External = false
		case strings.HasPrefix(w, "local service time"):
			s.Local = false
		}
	}
	if s.Local && a.Inputs.LocalServiceMeanS <= 0 {
		s.Local = false
	}
	return s
}

// Inputs are cluster cl's model inputs from its stats st and the
// configuration m (the rules above), with which of them are estimated.
// It returns an error wrapping dispatch.ErrInput when the cluster has no
// hosts.
func Inputs(cl Cluster, m Model, st api.Stats) (dispatch.Cluster, Source, error) {
	hosts := st.Hosts
	if cl.Hosts > 0 {
		hosts = cl.Hosts
	}
	if hosts < 1 {
		return dispatch.Cluster{}, Source{}, fmt.Errorf("cluster %q reports no hosts: %w", cl.Name, dispatch.ErrInput)
	}
	src := sourceOf(st.Admission)
	capacity := float64(hosts) * cl.Speed
	c := dispatch.Cluster{Name: cl.Name, Hosts: hosts, Power: capacity, Cost: cl.Cost, Lambda: cl.LocalRate}
	c.Theta = m.ExternalVMs * m.ExternalRun.Seconds() / capacity
	c.Tau = cl.LocalVMs * cl.LocalRun.Seconds() / capacity
	cv := dispatch.RefCVLocal
	if src.Rates {
		c.Lambda = st.Admission.Inputs.LocalRate
	}
	if src.External {
		c.Theta = st.Admission.Inputs.ExternalMeanS
	}
	if src.Local {
		c.Tau, cv = st.Admission.Inputs.LocalServiceMeanS, st.Admission.Inputs.LocalCV
	}
	ce := dispatch.RefCVExternal * c.Theta
	c.Omega = ce*ce + c.Theta*c.Theta
	cl2 := cv * c.Tau
	c.Mu = cl2*cl2 + c.Tau*c.Tau
	return c, src, c.Validate()
}

// ExternalRate is Lambda from the clusters' stats (the rule above).
func ExternalRate(m Model, stats []api.Stats) float64 {
	sum, any := 0.0, false
	for _, st := range stats {
		if sourceOf(st.Admission).Rates {
			sum += st.Admission.Inputs.ExternalRate
			any = true
		}
	}
	if any && sum > 0 {
		return sum
	}
	return m.ExternalRate
}

// Capacity is the external rate the clusters can carry,
// sum_j (1 - rho_j)/theta_j over those with rho_j < 1 (docs/models.md §6).
func Capacity(cs []dispatch.Cluster) float64 {
	s := 0.0
	for _, c := range cs {
		if c.Rho() < 1 {
			s += (1 - c.Rho()) / c.Theta
		}
	}
	return s
}

// overloadShare is the share of the capacity a rate split is computed at
// when the external rate is at or beyond the capacity (PAP has no split
// there): the split then leans towards each cluster's own capacity.
const overloadShare = 0.95
