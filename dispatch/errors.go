package dispatch

import "errors"

// The errors of the package.
var (
	// ErrClusters is returned by a Split, a rate split or a dispatcher
	// asked to work over fewer than one cluster.
	ErrClusters = errors.New("need at least one cluster")
	// ErrInput is wrapped by every refusal of a cluster's inputs, a rate,
	// a share or a dry-run answer (a *fielderr.Error names the field).
	ErrInput = errors.New("bad dispatch input")
	// ErrOverload is returned by a rate split when the clusters cannot
	// carry the external rate: Lambda >= sum_j (1 - rho_j)/theta_j over
	// the clusters with rho_j < 1.
	ErrOverload = errors.New("external rate beyond the clusters' capacity")
	// ErrNoCluster is returned by earliest-finish when no cluster plans
	// the lease to end by its deadline (or no cluster plans it at all).
	ErrNoCluster = errors.New("no cluster meets the deadline")
	// ErrPolicy is returned by Lookup for a name not in Policies.
	ErrPolicy = errors.New("unknown dispatch policy")
)
