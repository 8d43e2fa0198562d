// Package dispatch splits a gateway's stream of external requests over
// the clusters behind it, and merges a cluster's share with the
// cluster's own local requests (docs/experiments.md, "Multi-cluster
// experiments").
//
// It also holds the gateway's policies (docs/models.md §6), chosen by
// name from Policies: the rate split PAP (with bora's corrected phi_j)
// and RTDP's billiard dispatch (pap-rtdp), PAP with random dispatch
// (pap-rnd), round robin (rr), least-rate-first (lrf) and
// biggest-cluster-first (bcf), and earliest-finish, which picks among
// the clusters' dry-run answers. They are pure: no network, no clock,
// randomness only from the *rand.Rand given; the gateway asks the
// clusters and applies the choice.
//
// It imports only package scheduler, for the request type, and
// fielderr, for its errors: it knows nothing of the simulator, the
// generators or the experiment runner, so the runner (package
// experiment), the simulator and a gateway can all use the same splits.
package dispatch
