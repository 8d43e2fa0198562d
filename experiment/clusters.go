package experiment

import (
	"context"
	"fmt"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/federation"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/workgen"
)

// runClusters runs every policy on a multi-cluster workload
// (docs/experiments.md, "Multi-cluster experiments"): a policy that
// names a gateway runs the clusters behind it on one clock, any other
// runs them on their own with the round-robin split. The run's sample is
// the clusters' metrics aggregated by federation.Overall, each cluster's
// its own.
func (r *Result) runClusters(ctx context.Context, s *Spec, base func() (config.Config, error), p, k int, w *workgen.Workload) error {
	var reqs *federation.Requests // a federation file's, drawn once for every policy
	if s.fed != nil {
		var err error
		if reqs, err = s.fedRequests(base, p, r.Seeds[k]); err != nil {
			return fmt.Errorf("%s=%s, seed %d: %w", s.Vary.Param, s.Vary.Values[p], r.Seeds[k], err)
		}
	}
	for q, pol := range s.Policies {
		at := fmt.Sprintf("%s=%s, seed %d, policy %s", s.Vary.Param, s.Vary.Values[p], r.Seeds[k], pol.Name)
		run := s.splitClusters
		switch {
		case s.fed != nil:
			run = func(ctx context.Context, base func() (config.Config, error), p, q int, seed uint64, _ *workgen.Workload) (report.Metrics, []report.Metrics, error) {
				return s.federateFile(ctx, base, p, q, seed, reqs)
			}
		case pol.Gateway != "":
			run = s.federate
		}
		t0 := r.now()
		overall, clusters, err := run(ctx, base, p, q, r.Seeds[k], w)
		r.Wall[p][q][k] = r.now().Sub(t0)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		vals := metricValues(overall)
		for m, name := range s.Metrics {
			v, ok := vals[name]
			if !ok {
				return fmt.Errorf("%s: metric %s: the run did not measure it (energy_kwh and violation_rate need energy.policy)", at, name)
			}
			r.Samples[p][q][m][k] = v
			for c := range clusters {
				r.ClusterSamples[p][q][m][c][k] = metricValues(clusters[c])[name]
			}
		}
	}
	return nil
}

// federate runs point p's policy q, which names a gateway policy, on the
// clusters of w behind one gateway on one clock (package federation):
// the federation's overall metrics and each cluster's.
func (s *Spec) federate(ctx context.Context, base func() (config.Config, error), p, q int, seed uint64, w *workgen.Workload) (report.Metrics, []report.Metrics, error) {
	pol := s.Policies[q]
	setup := federation.Setup{Name: pol.Name, Policy: dispatch.PolicyName(pol.Gateway), Seed: seed, External: w.Requests}
	for _, cl := range w.Clusters {
		sc, err := s.runConfig(base, p, q, clusterShape(cl))
		if err != nil {
			return report.Metrics{}, nil, err
		}
		sc.Name, sc.Trace = cl.Name, sc.Trace+" "+cl.Name
		speed := float64(cl.MIPS) / 1000
		if speed == 0 {
			speed = 1
		}
		setup.Clusters = append(setup.Clusters, federation.Member{Sim: sc, Speed: speed, Local: cl.Requests})
	}
	return federationMetrics(federation.Run(ctx, setup))
}

// federateFile runs point p's policy q with seed on the federation
// file's clusters behind its gateway, on reqs: the federation's overall
// metrics and each cluster's.
func (s *Spec) federateFile(ctx context.Context, base func() (config.Config, error), p, q int, seed uint64, reqs *federation.Requests) (report.Metrics, []report.Metrics, error) {
	setup, err := s.federationSetup(base, p, q, seed, reqs)
	if err != nil {
		return report.Metrics{}, nil, err
	}
	return federationMetrics(federation.Run(ctx, setup))
}

// federationMetrics are a federation report's overall metrics and each
// cluster's.
func federationMetrics(rep *report.Report, err error) (report.Metrics, []report.Metrics, error) {
	if err != nil {
		return report.Metrics{}, nil, err
	}
	clusters := make([]report.Metrics, len(rep.Clusters))
	for c := range rep.Clusters {
		clusters[c] = rep.Clusters[c].Metrics
	}
	return rep.Metrics, clusters, nil
}

// splitClusters runs point p's policy q on each cluster of w on its own
// (simulateClusters): the clusters' metrics aggregated by
// federation.Overall, with no gateway rejection, and each cluster's.
func (s *Spec) splitClusters(ctx context.Context, base func() (config.Config, error), p, q int, _ uint64, w *workgen.Workload) (report.Metrics, []report.Metrics, error) {
	reps, err := s.simulateClusters(ctx, base, p, q, w)
	if err != nil {
		return report.Metrics{}, nil, err
	}
	clusters := make([]report.Metrics, len(reps))
	for c, rep := range reps {
		clusters[c] = rep.Metrics
	}
	return federation.Overall(reps, 0), clusters, nil
}

// simulateClusters runs point p's policy q on each cluster of w, one
// after the other: the gateway's external requests are split round robin
// over the clusters (dispatch.RoundRobin), and each cluster is simulated
// on its own hosts with its local requests and its share.
func (s *Spec) simulateClusters(ctx context.Context, base func() (config.Config, error), p, q int, w *workgen.Workload) ([]*report.Report, error) {
	shares, err := dispatch.RoundRobin(w.Requests, len(w.Clusters))
	if err != nil {
		return nil, err
	}
	reps := make([]*report.Report, len(w.Clusters))
	for c, cl := range w.Clusters {
		sc, err := s.runConfig(base, p, q, clusterShape(cl))
		if err != nil {
			return nil, err
		}
		sc.Trace += " " + cl.Name
		if reps[c], err = sim.RunContext(ctx, sc, dispatch.Merge(cl.Requests, shares[c])); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", cl.Name, err)
		}
	}
	return reps, nil
}

// allocClusters makes ClusterSamples for a multi-cluster model.
func (r *Result) allocClusters() {
	s := r.Spec
	if len(s.clusters) == 0 {
		return
	}
	for _, c := range s.clusters {
		r.Clusters = append(r.Clusters, c.Name)
	}
	r.ClusterSamples = make([][][][][]float64, len(s.Vary.Values))
	for p := range r.ClusterSamples {
		r.ClusterSamples[p] = make([][][][]float64, len(s.Policies))
		for q := range r.ClusterSamples[p] {
			r.ClusterSamples[p][q] = make([][][]float64, len(s.Metrics))
			for m := range r.ClusterSamples[p][q] {
				r.ClusterSamples[p][q][m] = make([][]float64, len(s.clusters))
				for c := range r.ClusterSamples[p][q][m] {
					r.ClusterSamples[p][q][m][c] = make([]float64, s.Seeds)
				}
			}
		}
	}
}
