package dispatch

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Answer is one cluster's dry-run answer for a lease (scheduler.DryRun,
// POST /v1/leases?dry_run=true), with the cluster's name and cost.
type Answer struct {
	Cluster string
	Cost    float64
	// Rejected is set when the cluster would reject the lease (Reason
	// says why) or found no plan for it; Start and End are the planned
	// first start and last end otherwise.
	Rejected   bool
	Reason     string
	Start, End time.Time
}

// EarliestFinish is the deadline-aware choice of docs/models.md §6: the
// order in which to try the clusters for a lease, best first. Only the
// clusters that plan the lease to end by the deadline are in it (all
// that plan it when deadline is zero: no deadline), by planned end, then
// cost, then name. The gateway sends the lease to the first and, when
// that cluster's admission rejects it, to the next.
//
// When no cluster meets the deadline the lease is rejected: it returns
// an error wrapping ErrNoCluster that gives each cluster's planned end or
// reason. bora does not fall back to the earliest end overall: a lease
// with a deadline placed where it misses it is a broken promise the user
// did not ask for, and a user who wants "as soon as possible" leaves
// the deadline out. Bad answers (no name, a duplicate name, a negative
// or non-finite cost, an end before the start, a planned answer without
// times) give an error wrapping ErrInput naming answers[i].
func EarliestFinish(ans []Answer, deadline time.Time) ([]int, error) {
	if len(ans) == 0 {
		return nil, fmt.Errorf("earliest-finish over no cluster: %w", ErrClusters)
	}
	seen := map[string]bool{}
	var order []int
	for i, a := range ans {
		path := fmt.Sprintf("answers[%d]", i)
		switch {
		case a.Cluster == "":
			return nil, fielderr.Wrap(ErrInput, path+".cluster", "an answer needs its cluster's name")
		case seen[a.Cluster]:
			return nil, fielderr.Wrap(ErrInput, path+".cluster", "cluster %q answered twice", a.Cluster)
		case math.IsNaN(a.Cost) || math.IsInf(a.Cost, 0) || a.Cost < 0:
			return nil, fielderr.Wrap(ErrInput, path+".cost", "cost %v is not a finite non-negative number", a.Cost)
		case !a.Rejected && (a.Start.IsZero() || a.End.IsZero()):
			return nil, fielderr.Wrap(ErrInput, path, "cluster %q: a planned answer needs a start and an end", a.Cluster)
		case !a.Rejected && a.End.Before(a.Start):
			return nil, fielderr.Wrap(ErrInput, path+".end", "cluster %q: end %v before start %v", a.Cluster, a.End, a.Start)
		}
		seen[a.Cluster] = true
		if !a.Rejected && (deadline.IsZero() || !a.End.After(deadline)) {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		var why []string
		for _, a := range ans {
			if a.Rejected {
				why = append(why, fmt.Sprintf("%s: rejected (%s)", a.Cluster, a.Reason))
			} else {
				why = append(why, fmt.Sprintf("%s: ends %s", a.Cluster, a.End.UTC().Format(time.RFC3339)))
			}
		}
		return nil, fmt.Errorf("deadline %s; %s: %w", deadline.UTC().Format(time.RFC3339), strings.Join(why, "; "), ErrNoCluster)
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := ans[i], ans[j]
		if c := a.End.Compare(b.End); c != 0 {
			return c
		}
		switch {
		case a.Cost < b.Cost:
			return -1
		case a.Cost > b.Cost:
			return 1
		}
		return strings.Compare(a.Cluster, b.Cluster)
	})
	return order, nil
}
