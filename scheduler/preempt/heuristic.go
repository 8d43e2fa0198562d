package preempt

import (
	"cmp"
	"math/bits"
	"slices"
)

// heuristicStarts sets how many variants of each greedy ordering run
// besides the plain one: each of the heuristicStarts candidates after the
// first forced first, and each of the first heuristicStarts left out.
const heuristicStarts = 8

// setOracle asks the oracle about each distinct set once. Sets of the
// first 128 candidates are remembered by their two words (a string made
// for every question, hashed and compared, was a third of the heuristic's
// time outside the oracle at 24,000 leases under aggressive backfilling),
// the others by their key.
type setOracle struct {
	feasible Feasible
	small    map[[2]uint64]bool
	memo     map[string]bool
}

func newSetOracle(feasible Feasible) *setOracle {
	return &setOracle{feasible: feasible, small: map[[2]uint64]bool{{}: false}, memo: map[string]bool{}}
}

func (o *setOracle) ok(s Set) bool {
	if w := s.trimmed(); len(w) <= 2 {
		var k [2]uint64
		copy(k[:], w)
		return askOnce(o.small, k, s, o.feasible)
	}
	return askOnce(o.memo, s.key(), s, o.feasible)
}

// askOnce returns memo's answer for s under key k, asking feasible (about
// a copy of s) and remembering its answer the first time.
func askOnce[K comparable](memo map[K]bool, k K, s Set, feasible Feasible) bool {
	if v, seen := memo[k]; seen {
		return v
	}
	v := feasible(s.Clone())
	memo[k] = v
	return v
}

// heuristicFamily runs the greedy of each policy's ordering, plainly, with
// each of its next heuristicStarts candidates forced first, and with each
// of its first heuristicStarts left out, and returns the distinct minimal sets found, given that
// the full set is feasible and the empty set is not. Each run costs at most
// 2n oracle calls, so the whole costs at most 3*(1+2*heuristicStarts)*2n =
// 102n.
func heuristicFamily(cands []Candidate, feasible Feasible) []Set {
	n := len(cands)
	o := newSetOracle(feasible)
	seen := map[string]bool{}
	var fam []Set
	run := func(order []int, first, skip int) {
		s, ok := greedy(o, n, order, first, skip)
		if ok && !seen[s.key()] {
			seen[s.key()] = true
			fam = append(fam, s)
		}
	}
	mlip := mlipOrder(cands)
	for _, order := range [][]int{movOrder(cands), mlip, momlFrom(cands, mlip)} {
		run(order, -1, -1)
		for k := 1; k <= heuristicStarts && k < n; k++ {
			run(order, order[k], -1) // order[0] forced first is the plain run
		}
		for k := 0; k < heuristicStarts && k < n; k++ {
			run(order, -1, order[k])
		}
	}
	return fam
}

// greedy adds first (if not -1), then the other candidates in order except
// skip, until the set is feasible; then it drops members in the reverse
// order of their addition whenever the set stays feasible without them.
// One pass suffices: a member kept was needed in a superset of the final
// set, so by monotonicity it is needed in the final set too. ok is false if
// the set never became feasible (skip was needed, or the oracle is not
// monotone).
func greedy(o *setOracle, n int, order []int, first, skip int) (Set, bool) {
	s := NewSet(n)
	var added []int
	fits := false
	if first >= 0 {
		s.Add(first)
		added = append(added, first)
		fits = o.ok(s)
	}
	for _, i := range order {
		if fits {
			break
		}
		if i == first || i == skip {
			continue
		}
		s.Add(i)
		added = append(added, i)
		fits = o.ok(s)
	}
	if !fits {
		return Set{}, false
	}
	for k := len(added) - 1; k >= 0; k-- {
		i := added[k]
		s.Remove(i)
		if !o.ok(s) {
			s.Add(i)
		}
	}
	return s.Clone(), true
}

// byLease breaks ordering ties: lower overhead, then lower lease id, then
// lower index.
func byLease(cands []Candidate, a, b int) int {
	return cmp.Or(
		cmp.Compare(cands[a].Overhead, cands[b].Overhead),
		cmp.Compare(cands[a].Lease, cands[b].Lease),
		cmp.Compare(a, b),
	)
}

func indexes(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// movOrder orders candidates by overhead per VM, smallest first.
func movOrder(cands []Candidate) []int {
	idx := indexes(len(cands))
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(comparePerVM(cands[a], cands[b]), byLease(cands, a, b))
	})
	return idx
}

// comparePerVM compares h(a)/v(a) with h(b)/v(b) exactly, by comparing the
// 128-bit products h(a)*v(b) and h(b)*v(a). Negative values count as zero; a
// candidate with no VMs and a positive overhead sorts last.
func comparePerVM(a, b Candidate) int {
	ha, hb := uint64(max(a.Overhead, 0)), uint64(max(b.Overhead, 0))
	va, vb := uint64(max(a.VMs, 0)), uint64(max(b.VMs, 0))
	hiA, loA := bits.Mul64(ha, vb)
	hiB, loB := bits.Mul64(hb, va)
	return cmp.Or(cmp.Compare(hiA, hiB), cmp.Compare(loA, loB))
}

// mlipOrder orders candidates by VM count, most first.
func mlipOrder(cands []Candidate) []int {
	idx := indexes(len(cands))
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(cands[b].VMs, cands[a].VMs), byLease(cands, a, b))
	})
	return idx
}

// momlOrder is mlipOrder with the candidates whose own overhead exceeds the
// median single-candidate overhead moved to the end, so they are added only
// when the others are not enough.
func momlOrder(cands []Candidate) []int { return momlFrom(cands, mlipOrder(cands)) }

// momlFrom is momlOrder from the candidates' mlipOrder, which it does not
// change.
func momlFrom(cands []Candidate, mlip []int) []int {
	hs := make([]int64, len(cands))
	for i, c := range cands {
		hs[i] = int64(c.Overhead)
	}
	alpha := median(hs)
	var cheap, dear []int
	for _, i := range mlip {
		if int64(cands[i].Overhead) <= alpha {
			cheap = append(cheap, i)
		} else {
			dear = append(dear, i)
		}
	}
	return append(cheap, dear...)
}

// median returns the median of xs (which it sorts): the middle value for an
// odd count, the mean of the two middle values rounded down for an even
// count. Rounding down loses nothing when comparing an integer h <= median:
// h <= floor(m) exactly when h <= m. It returns 0 for no values.
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	mid := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[mid]
	}
	a, b := xs[mid-1], xs[mid]
	return a + (b-a)/2 // a <= b: (b-a)/2 rounds down and cannot overflow
}
