package dispatch

import (
	"fmt"
	"math"

	"github.com/bora-sched/bora/fielderr"
)

// Reference coefficients of variation of service times
// (docs/models.md §6): external and local.
const (
	RefCVExternal = 0.5
	RefCVLocal    = 0.1
)

// Cluster is one cluster behind the gateway, in the terms of
// docs/models.md §6. Times are in any one unit (seconds, say), rates in
// its inverse; all clusters of a split must use the same unit.
type Cluster struct {
	// Name identifies the cluster (ties of earliest-finish are broken by
	// it last).
	Name string
	// Hosts is M_j; Power the cluster's computing power, the sum of its
	// hosts' speeds (biggest-cluster-first splits in proportion to it;
	// RTDP's fastest cluster has the highest Power/Hosts).
	Hosts int
	Power float64
	// Theta and Omega are the first and second moments of an external
	// request's service time (theta_j, omega_j).
	Theta, Omega float64
	// Lambda is the local arrival rate (lambda_j); Tau and Mu the first
	// and second moments of a local request's service time (tau_j, mu_j).
	Lambda, Tau, Mu float64
	// Cost is the per-cluster cost from the configuration, which breaks
	// ties of earliest-finish. It is >= 0.
	Cost float64
}

// Rho is the local load rho_j = tau_j * lambda_j.
func (c Cluster) Rho() float64 { return c.Tau * c.Lambda }

// Spec is a cluster described by rates and mean sizes, the multi-VM form
// of docs/models.md §6, from which NewCluster derives the moments.
type Spec struct {
	Name string
	// Speeds holds each host's speed s_ij (M_j = len(Speeds)).
	Speeds []float64
	// LocalRate is lambda_j.
	LocalRate float64
	// ExtVMs and ExtDuration are an external request's mean VM count
	// v_bar and mean duration d_bar; LocalVMs and LocalDuration the same
	// for local requests.
	ExtVMs, ExtDuration     float64
	LocalVMs, LocalDuration float64
	// CVExt and CVLocal are the coefficients of variation of the service
	// times; 0 means the reference (RefCVExternal, RefCVLocal).
	CVExt, CVLocal float64
	Cost           float64
}

// NewCluster derives a Cluster from s as docs/models.md §6 writes it:
// theta_j = v_bar * d_bar / (M_j * sum_i s_ij), the same for tau_j with
// the local means, and omega_j = (cv_e*theta_j)^2 + theta_j^2,
// mu_j = (cv_l*tau_j)^2 + tau_j^2. It returns an error wrapping ErrInput
// that names the first bad field.
func NewCluster(s Spec) (Cluster, error) {
	bad := func(path, format string, args ...any) (Cluster, error) {
		return Cluster{}, fielderr.Wrap(ErrInput, path, format, args...)
	}
	if len(s.Speeds) == 0 {
		return bad("speeds", "cluster %q has no hosts", s.Name)
	}
	sum := 0.0
	for i, v := range s.Speeds {
		if !(v > 0) || math.IsInf(v, 0) {
			return bad(fmt.Sprintf("speeds[%d]", i), "speed %v is not a positive number", v)
		}
		sum += v
	}
	for _, f := range []struct {
		path string
		v    float64
		pos  bool
	}{
		{"ext_vms", s.ExtVMs, true}, {"ext_duration", s.ExtDuration, true},
		{"local_rate", s.LocalRate, false}, {"local_vms", s.LocalVMs, false}, {"local_duration", s.LocalDuration, false},
		{"cv_ext", s.CVExt, false}, {"cv_local", s.CVLocal, false},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 || (f.pos && f.v == 0) {
			return bad(f.path, "%v is not a %s number", f.v, map[bool]string{true: "positive", false: "non-negative"}[f.pos])
		}
	}
	if s.LocalRate > 0 && (s.LocalVMs == 0 || s.LocalDuration == 0) {
		return bad("local_vms", "a local rate of %v needs positive local_vms and local_duration", s.LocalRate)
	}
	cve, cvl := s.CVExt, s.CVLocal
	if cve == 0 {
		cve = RefCVExternal
	}
	if cvl == 0 {
		cvl = RefCVLocal
	}
	m := float64(len(s.Speeds))
	theta := s.ExtVMs * s.ExtDuration / (m * sum)
	tau := s.LocalVMs * s.LocalDuration / (m * sum)
	c := Cluster{
		Name: s.Name, Hosts: len(s.Speeds), Power: sum,
		Theta: theta, Omega: (cve*theta)*(cve*theta) + theta*theta,
		Lambda: s.LocalRate, Tau: tau, Mu: (cvl*tau)*(cvl*tau) + tau*tau,
		Cost: s.Cost,
	}
	return c, c.Validate()
}

// Validate checks c's fields: a name, Hosts >= 1, Power > 0, Theta > 0,
// Omega >= Theta^2, Lambda >= 0, Tau >= 0 (> 0 when Lambda > 0),
// Mu >= Tau^2, Cost >= 0, all finite. A cluster saturated by its local
// load alone (rho_j >= 1) is valid: the rate splits give it no external
// load (docs/models.md §6). It returns an error wrapping ErrInput that
// names the field.
func (c Cluster) Validate() error {
	bad := func(path, format string, args ...any) error {
		return fielderr.Wrap(ErrInput, path, "cluster %q: "+format, append([]any{c.Name}, args...)...)
	}
	if c.Name == "" {
		return fielderr.Wrap(ErrInput, "name", "a cluster needs a name")
	}
	if c.Hosts < 1 {
		return bad("hosts", "%d hosts; want at least 1", c.Hosts)
	}
	for _, f := range []struct {
		path string
		v    float64
	}{{"power", c.Power}, {"theta", c.Theta}, {"omega", c.Omega}, {"lambda", c.Lambda}, {"tau", c.Tau}, {"mu", c.Mu}, {"cost", c.Cost}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return bad(f.path, "%v is not a finite non-negative number", f.v)
		}
	}
	switch {
	case c.Power == 0:
		return bad("power", "computing power 0; want > 0")
	case c.Theta == 0:
		return bad("theta", "external service time 0; want > 0")
	case c.Omega < c.Theta*c.Theta*(1-1e-12):
		return bad("omega", "second moment %v below theta^2 = %v", c.Omega, c.Theta*c.Theta)
	case c.Lambda > 0 && c.Tau == 0:
		return bad("tau", "local rate %v with local service time 0", c.Lambda)
	case c.Mu < c.Tau*c.Tau*(1-1e-12):
		return bad("mu", "second moment %v below tau^2 = %v", c.Mu, c.Tau*c.Tau)
	}
	return nil
}

// validateAll validates each cluster and that names are distinct; paths
// are prefixed "clusters[i].".
func validateAll(cs []Cluster) error {
	if len(cs) == 0 {
		return fmt.Errorf("dispatch over no cluster: %w", ErrClusters)
	}
	seen := map[string]int{}
	for i, c := range cs {
		if err := c.Validate(); err != nil {
			return prefix(fmt.Sprintf("clusters[%d]", i), err)
		}
		if j, ok := seen[c.Name]; ok {
			return fielderr.Wrap(ErrInput, fmt.Sprintf("clusters[%d].name", i), "%q is also clusters[%d]", c.Name, j)
		}
		seen[c.Name] = i
	}
	return nil
}

// prefix puts p before a *fielderr.Error's path.
func prefix(p string, err error) error {
	if fe, ok := err.(*fielderr.Error); ok {
		out := *fe
		out.Path = p + "." + fe.Path
		return &out
	}
	return err
}
