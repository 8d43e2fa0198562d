package dispatch

import (
	"fmt"
	"slices"
	"sort"

	"github.com/bora-sched/bora/scheduler"
)

// Split assigns each request of an external stream to one of n clusters
// and returns each cluster's share, in arrival order. It does not change
// the requests, and the shares together hold every request once.
type Split func(reqs []scheduler.Request, n int) ([][]scheduler.Request, error)

// Splits are the splits by name.
var Splits = map[string]Split{
	"round-robin": RoundRobin,
}

// RoundRobin is the source's gateway (docs/workloads.md §3): in arrival
// order (requests that arrive together in the order given), request i
// goes to cluster i mod n. It returns ErrClusters when n < 1.
func RoundRobin(reqs []scheduler.Request, n int) ([][]scheduler.Request, error) {
	if n < 1 {
		return nil, fmt.Errorf("round-robin over %d clusters: %w", n, ErrClusters)
	}
	out := make([][]scheduler.Request, n)
	for i, r := range byArrival(reqs) {
		j := roundRobin(i, n)
		out[j] = append(out[j], r)
	}
	return out, nil
}

// roundRobin is round robin's rule: the i-th request (from 0) over n
// clusters goes to cluster i mod n.
func roundRobin(i, n int) int { return i % n }

// Merge is one cluster's stream: its local requests and its share of the
// external ones, in arrival order; at the same arrival, local requests
// come first, each stream in the order given.
func Merge(local, external []scheduler.Request) []scheduler.Request {
	out := make([]scheduler.Request, 0, len(local)+len(external))
	out = append(out, local...)
	out = append(out, external...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Arrival < out[j].Arrival })
	return out
}

// byArrival is reqs in arrival order, stable; reqs itself when it is
// already sorted.
func byArrival(reqs []scheduler.Request) []scheduler.Request {
	less := func(a, b scheduler.Request) int {
		switch {
		case a.Arrival < b.Arrival:
			return -1
		case a.Arrival > b.Arrival:
			return 1
		}
		return 0
	}
	if slices.IsSortedFunc(reqs, less) {
		return reqs
	}
	sorted := slices.Clone(reqs)
	slices.SortStableFunc(sorted, less)
	return sorted
}
