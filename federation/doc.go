// Package federation simulates several clusters behind one gateway
// (docs/models.md §6, bora simulate --federation): each cluster is a
// sim.Stepper with its own hosts, configuration, admission stage and
// local requests, and the gateway's external requests are dispatched at
// their arrival times on the one simulated clock by a dispatch policy
// (rr, lrf, bcf, lrf-rnd, bcf-rnd, pap-rnd, pap-rtdp, earliest-finish).
//
// For each external request, in arrival order, the gateway asks the
// policy for its order of clusters (earliest-finish with each cluster's
// dry-run answer at the arrival, every cluster advanced to it first) and
// hands the request to the first; when that cluster's admission stage
// refuses it, to the next, and so on. A refusal is counted at the
// cluster; a request no cluster took, or for which the policy had no
// cluster, is rejected at the gateway. A cluster's scheduler may still
// reject a request it was handed (a lease it can never fit): that lease
// stays in the cluster's report, rejected there.
//
// The rate policies advance a cluster only when it is handed a request
// (and at the end), so that under rr with no admission stage each
// cluster runs exactly as a simulation of its local requests and its
// round-robin share (dispatch.RoundRobin, dispatch.Merge);
// TestRoundRobinMatchesSplit checks it.
//
// The report (Run) has the overall metrics, computed from the clusters'
// by the rules of docs/experiments.md ("Multi-cluster experiments":
// counts summed, rates and means weighted by what they are taken over,
// the longest makespan) with the gateway's rejections added to the
// external leases; each cluster's own report; and the gateway's counts.
//
// File (file.go) reads the federation file of docs/formats.md.
package federation
