package preempt

import "math/bits"

// exactSearch enumerates every minimal feasible set of n <= MaxExactLimit
// candidates, the sets held as bit masks, by dualize and advance.
//
// It keeps the minimal sets found so far and the minimal transversals of
// that family (the minimal sets meeting every found set). The complement of
// a minimal transversal is a maximal set containing no found set, so asking
// the oracle about it settles it: infeasible, it is a maximal infeasible
// set and stays one; feasible, it holds a minimal set not found yet, which
// shrink extracts, and the transversals are updated. When every complement
// is infeasible no minimal set is missing: any feasible set contains a
// found one. Each minimal and each maximal infeasible set must be asked
// about by any exact method, so the oracle calls stay within a small
// factor of that lower bound.
type exactSearch struct {
	feasible Feasible
	memo     map[uint64]bool
	found    []uint64
	trans    []transversal
	spare    []transversal // the previous trans, reused by add
	miss     []uint64      // add's buffer: transversals missing the new set
	holding  [64][]uint64  // add's buffers: staying transversals meeting the new set in one member, by it
}

// transversal is a minimal transversal of the found family; checked says
// its complement was found infeasible.
type transversal struct {
	t       uint64
	checked bool
}

// exactFamily returns every minimal feasible set, given that the full set of
// n candidates is feasible and the empty set is not.
func exactFamily(n int, feasible Feasible) []Set {
	full := fullMask(n)
	e := &exactSearch{
		feasible: feasible,
		memo:     map[uint64]bool{0: false, full: true},
		trans:    []transversal{{t: 0}}, // the found family is empty
	}
	for i := 0; i < len(e.trans); {
		if e.trans[i].checked {
			i++
			continue
		}
		x := full &^ e.trans[i].t
		if !e.ok(x) {
			e.trans[i].checked = true
			i++
			continue
		}
		m := e.shrink(0, x, false)
		e.found = append(e.found, m)
		i = e.add(m, i) // transversals before i were checked and stay so
	}
	fam := make([]Set, len(e.found))
	for i, m := range e.found {
		fam[i] = maskSet(m)
	}
	return fam
}

// ok asks the oracle about m once, remembering the answer.
func (e *exactSearch) ok(m uint64) bool {
	if v, seen := e.memo[m]; seen {
		return v
	}
	v := e.feasible(maskSet(m))
	e.memo[m] = v
	return v
}

// shrink returns a minimal feasible m with base <= m <= base|c, given that
// base|c is feasible (QuickXplain: about 2k log2(|c|/k) oracle calls for a
// result of k members). changed says base grew since it was last asked
// about; base itself is known infeasible otherwise.
func (e *exactSearch) shrink(base, c uint64, changed bool) uint64 {
	if changed && e.ok(base) {
		return 0
	}
	if c&(c-1) == 0 {
		return c // one member left, needed since base is infeasible
	}
	low, high := split(c)
	mh := e.shrink(base|low, high, true)
	ml := e.shrink(base|mh, low, mh != 0)
	return ml | mh
}

// split halves the members of c into its lower and upper indexes.
func split(c uint64) (low, high uint64) {
	high = c
	for range (bits.OnesCount64(c) + 1) / 2 {
		high &= high - 1 // drop the lowest member
	}
	return c &^ high, high
}

// add updates the minimal transversals for a new minimal set m (one step of
// Berge's algorithm): a transversal meeting m stays; one missing m is
// extended by each member b of m, and the extension is kept unless a
// staying transversal lies inside it. Such a one lies inside t|b with t
// missing m, so it meets m in b alone: only the staying transversals that
// meet m in one member are kept aside (in holding, by that member) and
// scanned; two extensions never lie inside one another. Stays keep their
// order and checked mark; add returns how many of them were before
// position upto.
func (e *exactSearch) add(m uint64, upto int) int {
	next, miss, before := e.spare[:0], e.miss[:0], 0
	for i, tr := range e.trans {
		x := tr.t & m
		if x == 0 {
			miss = append(miss, tr.t)
			continue
		}
		next = append(next, tr)
		if i < upto {
			before++
		}
		if x&(x-1) == 0 { // one member of m
			b := bits.TrailingZeros64(x)
			e.holding[b] = append(e.holding[b], tr.t)
		}
	}
	for _, t := range miss {
		for r := m; r != 0; r &= r - 1 {
			b := bits.TrailingZeros64(r)
			if c := t | 1<<uint(b); !holdsSubset(e.holding[b], c) {
				next = append(next, transversal{t: c})
			}
		}
	}
	for r := m; r != 0; r &= r - 1 {
		b := bits.TrailingZeros64(r)
		e.holding[b] = e.holding[b][:0]
	}
	e.spare, e.trans, e.miss = e.trans, next, miss
	return before
}

// holdsSubset reports whether one of ts lies inside c.
func holdsSubset(ts []uint64, c uint64) bool {
	for _, t := range ts {
		if t&^c == 0 {
			return true
		}
	}
	return false
}

// fullMask returns the mask of candidates 0..n-1, n <= 64.
func fullMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}
