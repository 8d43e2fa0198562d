// Package gateway is bora's gateway daemon (`bora gateway serve`,
// docs/models.md §6): it spreads external leases over the clusters behind
// it and serves the same lease API as borad, so that `bora --server`
// works against it unchanged.
//
// The gateway polls each cluster's GET /v1/stats on a period (poll) and
// builds each cluster's model inputs from the answer: the admission
// stage's estimates of the local and external rates and service times
// (docs/models.md §4) where they are estimated, the configuration's
// fallbacks where they are not, the host count from the stats and a speed
// factor from the configuration (model.go). From them it builds the
// dispatch policy named in its configuration (package dispatch) over the
// clusters that answer, again on a period (recompute) and whenever a
// cluster goes down or comes back.
//
// A lease is forwarded to the first cluster of the policy's order; a
// cluster whose admission stage refuses it (reason admission-limit or
// availability) or that does not answer sends it to the next, and each
// try is kept in the lease's history. The gateway's own lease ids map to
// (cluster, cluster lease id) in its own bbolt file (store.go), committed
// before the answer, so a restart loses no mapping. A lease on a cluster
// that does not answer is shown in the state "unknown", not as an error.
//
// It imports api, dispatch, fielderr, scheduler (for the reason names)
// and yamlstrict: it does not link the simulator, the report writer or
// the workload generators.
package gateway
