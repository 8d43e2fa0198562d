package preempt

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Choice is the set of leases chosen for preemption.
type Choice struct {
	Leases      []uint64      // chosen lease ids, ascending
	Indexes     []int         // their indexes in the candidate slice, ascending (not aligned with Leases)
	Overhead    time.Duration // h(C): the sum of the chosen candidates' h(L)
	VMs         int           // VMs preempted
	Method      Method        // how the minimal sets were found
	MinimalSets int           // how many minimal sets were considered
}

// Choose picks the set of candidates to preempt under policy p, among the
// minimal feasible sets that MinimalSets returns for the same arguments:
// with at most exactLimit candidates (capped at MaxExactLimit) all of them,
// above it those the documented greedy heuristic finds (Choice.Method says
// which).
//
//   - MOV picks the set with the smallest total overhead h(C).
//   - MLIP picks the set with the fewest leases.
//   - MOML computes alpha, the median of h(C) over the minimal sets
//     considered (for an even count the mean of the two middle values), and
//     picks the set with the fewest leases among those with h(C) <= alpha.
//
// Ties are broken by, in order: lower total overhead; fewer VMs preempted;
// the lexicographically lower ascending list of lease ids (so {2, 9} comes
// before {3, 4}, and a list before any longer list it starts). Lease ids
// are unique, so no two sets tie on all three.
//
// Errors: NOP returns ErrNoPreemption without calling feasible; a Policy
// value other than the four returns ErrUnknownPolicy; a candidate with
// negative VMs or overhead, or a repeated lease id, returns
// ErrInvalidCandidate. No candidates, or a request that does not fit even
// with every candidate preempted, returns ErrInfeasible (with no candidates
// feasible is not called). If the request fits with nothing preempted the
// Choice is empty (no leases, MinimalSets 1: the empty set) and the error
// nil.
func Choose(p Policy, cands []Candidate, feasible Feasible, exactLimit int) (Choice, error) {
	switch p {
	case NOP:
		return Choice{}, ErrNoPreemption
	case MOV, MLIP, MOML:
	default:
		return Choice{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPolicy, p, validPolicies())
	}
	if err := validate(cands); err != nil {
		return Choice{}, err
	}
	if len(cands) == 0 {
		return Choice{}, fmt.Errorf("%w: no candidates", ErrInfeasible)
	}
	fam, method := MinimalSets(cands, feasible, exactLimit)
	if len(fam) == 0 {
		return Choice{}, fmt.Errorf("%w: %d candidates", ErrInfeasible, len(cands))
	}
	sums := make([]summary, len(fam))
	for i, s := range fam {
		sums[i] = summarise(cands, s)
	}
	best := pick(p, sums)
	return Choice{
		Leases:      best.ids,
		Indexes:     best.idx,
		Overhead:    best.overhead,
		VMs:         best.vms,
		Method:      method,
		MinimalSets: len(fam),
	}, nil
}

// validate checks the candidates for negative values and repeated ids.
func validate(cands []Candidate) error {
	seen := make(map[uint64]int, len(cands))
	for i, c := range cands {
		if c.VMs < 0 || c.Overhead < 0 {
			return fmt.Errorf("%w: lease %d (index %d) has %d VMs and overhead %v",
				ErrInvalidCandidate, c.Lease, i, c.VMs, c.Overhead)
		}
		if j, dup := seen[c.Lease]; dup {
			return fmt.Errorf("%w: lease %d at indexes %d and %d", ErrInvalidCandidate, c.Lease, j, i)
		}
		seen[c.Lease] = i
	}
	return nil
}

// summary is what the policies and the tie-break look at in a set.
type summary struct {
	idx      []int    // ascending
	ids      []uint64 // ascending
	overhead time.Duration
	vms      int
}

func summarise(cands []Candidate, s Set) summary {
	sum := summary{idx: s.Indexes()}
	sum.ids = make([]uint64, 0, len(sum.idx))
	for _, i := range sum.idx {
		c := cands[i]
		sum.ids = append(sum.ids, c.Lease)
		sum.overhead += c.Overhead
		sum.vms += c.VMs
	}
	slices.Sort(sum.ids)
	return sum
}

// tieBreak orders sets by lower overhead, fewer VMs, then lower lease ids.
func tieBreak(a, b *summary) int {
	return cmp.Or(
		cmp.Compare(a.overhead, b.overhead),
		cmp.Compare(a.vms, b.vms),
		slices.Compare(a.ids, b.ids),
	)
}

// byCount orders sets by fewer leases, then by tieBreak.
func byCount(a, b *summary) int {
	return cmp.Or(cmp.Compare(len(a.idx), len(b.idx)), tieBreak(a, b))
}

// pick returns the set policy p prefers; sums is not empty.
func pick(p Policy, sums []summary) *summary {
	better := tieBreak // MOV: the overhead is the tie-break's first key
	if p == MLIP || p == MOML {
		better = byCount
	}
	alpha := time.Duration(1<<63 - 1)
	if p == MOML {
		hs := make([]int64, len(sums))
		for i := range sums {
			hs[i] = int64(sums[i].overhead)
		}
		alpha = time.Duration(median(hs))
	}
	var best *summary
	for i := range sums {
		s := &sums[i]
		if s.overhead > alpha {
			continue
		}
		if best == nil || better(s, best) < 0 {
			best = s
		}
	}
	return best
}
