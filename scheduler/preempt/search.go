package preempt

import (
	"slices"
	"time"
)

// Candidate is a lease that may be preempted.
type Candidate struct {
	Lease    uint64        // lease id
	VMs      int           // v(L)
	Overhead time.Duration // h(L) of docs/models.md §2 for this lease's class
}

// Feasible reports whether the request fits when the candidates whose
// indexes (into the candidates slice) are in set are preempted. It must be
// monotone: a superset of a feasible set is feasible. With an oracle that is
// not monotone the search still ends, but what it returns is unspecified.
// The set is a fresh copy the oracle may keep.
type Feasible func(set Set) bool

// Search limits.
const (
	// DefaultExactLimit is the number of candidates up to which callers
	// should ask for the exact search.
	DefaultExactLimit = 16

	// MaxExactLimit caps the exact-limit argument: the exact search holds
	// sets as 64-bit masks. The number of minimal sets itself can grow
	// exponentially with n, so limits much above 20 are rarely affordable.
	MaxExactLimit = 63
)

// methodFor returns the method used for n candidates under exactLimit: exact
// if n <= exactLimit (capped at MaxExactLimit), heuristic otherwise. A limit
// of zero or less sends every non-empty candidate list to the heuristic.
func methodFor(n, exactLimit int) Method {
	if n <= min(exactLimit, MaxExactLimit) {
		return Exact
	}
	return Heuristic
}

// MinimalSets returns minimal feasible sets of candidates (feasible, and
// infeasible without any one member) and the method that found them.
//
// With len(cands) <= exactLimit (capped at MaxExactLimit) the search is
// exact (dualize and advance, see the package documentation): the result is
// every minimal set. Above the limit the greedy
// heuristic described in the package documentation returns the distinct
// minimal sets its runs found, at most 102n+2 oracle calls for n candidates.
//
// If the full set is infeasible the result is empty; if the empty set is
// feasible it is the only minimal set. Sets are ordered by size, then by
// their ascending indexes lexicographically.
func MinimalSets(cands []Candidate, feasible Feasible, exactLimit int) ([]Set, Method) {
	n := len(cands)
	method := methodFor(n, exactLimit)
	all := NewSet(n)
	for i := range n {
		all.Add(i)
	}
	if !feasible(all) {
		return nil, method
	}
	if n == 0 || feasible(NewSet(n)) {
		return []Set{NewSet(n)}, method
	}
	var fam []Set
	if method == Exact {
		fam = exactFamily(n, feasible)
	} else {
		fam = heuristicFamily(cands, feasible)
	}
	slices.SortFunc(fam, compareSets)
	return fam, method
}
