// Package dispatch splits a gateway's stream of external requests over
// the clusters behind it, and merges a cluster's share with the
// cluster's own local requests (docs/experiments.md, "Multi-cluster
// experiments").
//
// It imports only package scheduler, for the request type: it knows
// nothing of the simulator, the generators or the experiment runner, so
// the runner (package experiment), the simulator and a gateway can all
// use the same splits.
package dispatch
