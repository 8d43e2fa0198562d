package dispatch

import (
	"fmt"
	"math"
	"slices"

	"github.com/bora-sched/bora/fielderr"
)

// PAP is the source's rate split (docs/models.md §6): the external rate
// Lambda over the clusters so as to minimise the mean external response
// time T. It returns Lambda_j per cluster, in the order of cs, summing
// to Lambda. Clusters with rho_j >= 1 get 0 (they cannot take external
// load at any rate); so do clusters whose psi_j the optimum's z does not
// exceed. It returns ErrClusters for no cluster, an error wrapping
// ErrInput for a bad cluster or rate, and ErrOverload when Lambda is at
// or beyond the clusters' capacity sum_j (1 - rho_j)/theta_j.
func PAP(cs []Cluster, rate float64) ([]float64, error) {
	return papWith(cs, rate, phi)
}

// psi is psi_j: the marginal cost dT at Lambda_j = 0, below which cluster
// j takes no external load.
func psi(c Cluster) float64 {
	a := 1 - c.Rho()
	return c.Lambda*c.Mu/(2*a*a) + c.Theta/a
}

// phi is bora's phi_j(z), with the factor (1 - rho_j) on omega_j that
// the source's eq. 4.7 leaves out: phi_j(psi_j) = (1 - rho_j)/theta_j,
// so Lambda_j(psi_j) = 0.
func phi(c Cluster, z float64) float64 {
	a := 1 - c.Rho()
	num := a * (c.Omega*a + c.Theta*c.Lambda*c.Mu)
	den := 2*c.Theta*a*z + c.Omega - 2*c.Theta*c.Theta
	return math.Sqrt(num/den) / c.Theta
}

// phiSource is phi_j as the source's eq. 4.7 prints it (omega_j without
// the factor (1 - rho_j)); kept for the test that shows it misses the
// minimum of T.
func phiSource(c Cluster, z float64) float64 {
	a := 1 - c.Rho()
	num := a * (c.Omega + c.Theta*c.Lambda*c.Mu)
	den := 2*c.Theta*a*z + c.Omega - 2*c.Theta*c.Theta
	return math.Sqrt(num/den) / c.Theta
}

// papWith is PAP with phi given.
func papWith(cs []Cluster, rate float64, phi func(Cluster, float64) float64) ([]float64, error) {
	if err := validateAll(cs); err != nil {
		return nil, err
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		return nil, fielderr.Wrap(ErrInput, "rate", "external rate %v is not a finite non-negative number", rate)
	}
	out := make([]float64, len(cs))
	// The clusters that can take load, by psi (ties by index).
	var idx []int
	capacity := 0.0
	for j, c := range cs {
		if c.Rho() < 1 {
			idx = append(idx, j)
			capacity += (1 - c.Rho()) / c.Theta
		}
	}
	if rate >= capacity {
		return nil, fmt.Errorf("external rate %v, capacity %v: %w", rate, capacity, ErrOverload)
	}
	if rate == 0 {
		return out, nil
	}
	ps := make([]float64, len(cs))
	for _, j := range idx {
		ps[j] = psi(cs[j])
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	// load is the rate the first k clusters take at marginal cost z.
	load := func(k int, z float64) float64 {
		s := 0.0
		for _, j := range idx[:k] {
			c := cs[j]
			s += max(0, (1-c.Rho())/c.Theta-phi(c, z))
		}
		return s
	}
	// Grow k while the first k clusters, at the next cluster's psi, take
	// less than the rate: then the next one is needed too.
	k := 1
	for k < len(idx) && load(k, ps[idx[k]]) < rate {
		k++
	}
	lo := ps[idx[k-1]]
	var hi float64
	if k < len(idx) {
		hi = ps[idx[k]]
	} else {
		hi = 2 * lo
		for i := 0; load(k, hi) < rate; i++ {
			if i == 1100 {
				return nil, fmt.Errorf("no marginal cost carries rate %v: %w", rate, ErrOverload)
			}
			hi *= 2
		}
	}
	// Bisection to a relative 1e-12, finer than the source's 0.001
	// (docs/models.md §6): 40-odd evaluations of k square roots.
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if load(k, mid) < rate {
			lo = mid
		} else {
			hi = mid
		}
	}
	sum := 0.0
	for _, j := range idx[:k] {
		c := cs[j]
		out[j] = max(0, (1-c.Rho())/c.Theta-phi(c, hi))
		sum += out[j]
	}
	// Scale the last rounding away so that the shares sum to the rate.
	for _, j := range idx[:k] {
		out[j] *= rate / sum
	}
	return out, nil
}

// ResponseTime is T, the mean external response time of docs/models.md
// §6, for the split given (Lambda_j per cluster, the rate their sum). It
// is +Inf when a cluster with load is at or beyond its capacity.
func ResponseTime(cs []Cluster, split []float64) float64 {
	total, t := 0.0, 0.0
	for j, c := range cs {
		l := split[j]
		if l == 0 {
			continue
		}
		a := 1 - c.Rho()
		room := a - c.Theta*l
		if a <= 0 || room <= 0 {
			return math.Inf(1)
		}
		t += l * (c.Theta + (l*c.Omega+c.Lambda*c.Mu)/(2*room)) / a
		total += l
	}
	if total == 0 {
		return 0
	}
	return t / total
}
