package preempt

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// checkFamily fails unless fam is sorted, duplicate-free and made of
// minimal sets.
func checkFamily(t *testing.T, f Feasible, fam []Set) {
	t.Helper()
	for i, s := range fam {
		checkMinimal(t, f, s)
		if i > 0 && compareSets(fam[i-1], s) >= 0 {
			t.Fatalf("family not sorted or repeats: %v then %v", fam[i-1], s)
		}
	}
}

// TestHeuristicAboveLimit runs Choose on random packed instances of 17 to
// 64 candidates (the reference pick works on 64-bit masks) and of 200: the
// result must be minimal, come from the heuristic within its call bound,
// and (up to 64) be the policy's pick among the sets MinimalSets reports.
func TestHeuristicAboveLimit(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (instances use seed+k)", seed)
	for k := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed+k, 2))
		n := DefaultExactLimit + 1 + rng.IntN(64-DefaultExactLimit)
		if k%10 == 0 {
			n = 200
		}
		c := packedCluster(rng, n)
		cands := c.candidates()
		if c.feasible(NewSet(0)) {
			continue
		}
		fam, method := MinimalSets(cands, c.feasible, DefaultExactLimit)
		if method != Heuristic || len(fam) == 0 {
			t.Fatalf("seed %d: %d sets by %s, want some by heuristic", seed+k, len(fam), method)
		}
		checkFamily(t, c.feasible, fam)
		for _, p := range []Policy{MOV, MLIP, MOML} {
			calls := 0
			got, err := Choose(p, cands, counted(c.feasible, &calls), DefaultExactLimit)
			if err != nil || got.Method != Heuristic || got.MinimalSets != len(fam) {
				t.Fatalf("seed %d %s: %+v, %v", seed+k, p, got, err)
			}
			if bound := 102*n + 2; calls > bound {
				t.Errorf("seed %d %s: %d oracle calls for %d candidates, bound %d", seed+k, p, calls, n, bound)
			}
			set := SetOf(got.Indexes...)
			checkMinimal(t, c.feasible, set)
			if n > 64 {
				continue
			}
			if want, _ := refChoose(p, cands, masksOf(t, fam)); choiceMask(got) != want {
				t.Errorf("seed %d %s: got %v, want mask %b among the family", seed+k, p, got.Indexes, want)
			}
		}
	}
}

// TestHeuristicBelowLimit forces the heuristic (exact limit 0) on instances
// small enough for a brute force: every set it finds must be one of the
// true minimal sets.
func TestHeuristicBelowLimit(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (instances use seed+k)", seed)
	for k := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed+k, 3))
		var c *cluster
		if k%2 == 0 {
			c = randomCluster(rng, 1+rng.IntN(15))
		} else {
			c = packedCluster(rng, 1+rng.IntN(15))
		}
		cands := c.candidates()
		exact := bruteMinimal(len(cands), c.feasible)
		fam, method := MinimalSets(cands, c.feasible, 0)
		if method != Heuristic || (len(fam) == 0) != (len(exact) == 0) {
			t.Fatalf("seed %d: %d sets by %s, brute force %d", seed+k, len(fam), method, len(exact))
		}
		for _, m := range masksOf(t, fam) {
			if _, found := slices.BinarySearch(exact, m); !found {
				t.Fatalf("seed %d: heuristic set %b is not minimal (brute force %b)", seed+k, m, exact)
			}
		}
		for _, p := range []Policy{MOV, MLIP, MOML} {
			got, err := Choose(p, cands, c.feasible, 0)
			if len(exact) == 0 {
				if err == nil {
					t.Fatalf("seed %d %s: got %v, want an error", seed+k, p, got.Indexes)
				}
				continue
			}
			if err != nil || got.Method != Heuristic {
				t.Fatalf("seed %d %s: %+v, %v", seed+k, p, got, err)
			}
			checkMinimal(t, c.feasible, SetOf(got.Indexes...))
		}
	}
}

// TestHeuristicThreeGroups: on the hand-worked scenario the greedy runs find
// all three minimal sets, so every policy picks what the exact search picks.
// MOV's ordering (overhead per VM: D, E, F 40s; B 100s; C 120s; A 150s)
// reaches {D,E,F}; MLIP's (A has 2 VMs) reaches {A}; MOV's with D left out
// adds E, F, B, C (feasible: B and C free host 1), keeps C and B (without
// either nothing fits), then drops F and E: {B,C}.
func TestHeuristicThreeGroups(t *testing.T) {
	c := threeGroups()
	want := map[Policy][]uint64{MOV: {4, 5, 6}, MLIP: {1}, MOML: {2, 3}}
	for p, ids := range want {
		got, err := Choose(p, c.candidates(), c.feasible, 0)
		if err != nil || got.Method != Heuristic || got.MinimalSets != 3 || !slices.Equal(got.Leases, ids) {
			t.Errorf("%s: got %v from %d sets by %s (%v), want %v from 3 by heuristic",
				p, got.Leases, got.MinimalSets, got.Method, err, ids)
		}
	}
}

// TestHeuristicOrders pins the three greedy orderings.
func TestHeuristicOrders(t *testing.T) {
	// index: id, VMs, h (h per VM)
	cands := []Candidate{
		{Lease: 10, VMs: 2, Overhead: 300 * sec}, // 0: 150s per VM
		{Lease: 11, VMs: 1, Overhead: 100 * sec}, // 1: 100s
		{Lease: 12, VMs: 3, Overhead: 600 * sec}, // 2: 200s
		{Lease: 13, VMs: 1, Overhead: 100 * sec}, // 3: 100s, ties with 1 on h; id 13 > 11
		{Lease: 14, VMs: 0, Overhead: 50 * sec},  // 4: no VMs: infinite per VM
	}
	tests := []struct {
		name string
		got  []int
		want []int
	}{
		// per VM: 1 and 3 (100s; ids 11 < 13), 0 (150s), 2 (200s), 4 (inf).
		{"MOV", movOrder(cands), []int{1, 3, 0, 2, 4}},
		// VMs: 2 (3), 0 (2), 1 and 3 (1; h ties, ids 11 < 13), 4 (0).
		{"MLIP", mlipOrder(cands), []int{2, 0, 1, 3, 4}},
		// median of 300, 100, 600, 100, 50 is 100s: 1, 3, 4 are cheap and
		// keep MLIP's order; 0 (300s) and 2 (600s) go last, 2 first.
		{"MOML", momlOrder(cands), []int{1, 3, 4, 2, 0}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s order = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 7},
		{[]int64{300, 120, 220}, 220},      // odd: the middle one
		{[]int64{500, 120, 300, 220}, 260}, // even: (220+300)/2
		{[]int64{1, 2}, 1},                 // 1.5 rounds down; h <= 1.5 iff h <= 1
	}
	for _, tt := range tests {
		if got := median(slices.Clone(tt.in)); got != tt.want {
			t.Errorf("median(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestSetOracleAsksOnce asks setOracle about random sets, many of them
// again, over candidate counts on both sides of the 128 it remembers by
// their words: each distinct set reaches the oracle once (the empty set
// never), and every answer is the oracle's.
func TestSetOracleAsksOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 10, 64, 65, 128, 129, 200} {
		asked := map[string]int{}
		truth := func(s Set) bool { // the members past 64 count as much as the first
			high := 0
			for i := 64; i < n; i++ {
				if s.Has(i) {
					high++
				}
			}
			return s.Has(0) != (high%2 == 1)
		}
		o := newSetOracle(func(s Set) bool {
			asked[s.key()]++
			return truth(s)
		})
		var sets []Set
		for range 300 {
			if len(sets) > 0 && rng.IntN(2) == 0 {
				s := sets[rng.IntN(len(sets))]
				switch rng.IntN(3) {
				case 0: // the same members, in a longer list of words
					s = s.Clone()
					s.words = append(s.words, 0)
				case 1: // one member more or less, from the last ones
					s = s.Clone()
					if i := n - 1 - rng.IntN(min(n, 8)); s.Has(i) {
						s.Remove(i)
					} else {
						s.Add(i)
					}
				}
				sets = append(sets, s)
				continue
			}
			s := NewSet(n)
			for i := range n {
				if rng.IntN(4) == 0 {
					s.Add(i)
				}
			}
			sets = append(sets, s)
		}
		sets = append(sets, NewSet(n), NewSet(0))
		for _, s := range sets {
			if got, want := o.ok(s), s.Len() > 0 && truth(s); got != want {
				t.Fatalf("n %d: ok(%v) = %v, want %v", n, s, got, want)
			}
		}
		distinct := map[string]bool{}
		for _, s := range sets {
			if s.Len() > 0 {
				distinct[s.key()] = true
			}
		}
		for k, c := range asked {
			if c != 1 || !distinct[k] {
				t.Errorf("n %d: set %x asked %d times", n, k, c)
			}
		}
		if len(asked) != len(distinct) {
			t.Errorf("n %d: %d sets asked, %d distinct non-empty sets", n, len(asked), len(distinct))
		}
		if _, ok := asked[NewSet(0).key()]; ok {
			t.Errorf("n %d: the empty set was asked", n)
		}
	}
}
