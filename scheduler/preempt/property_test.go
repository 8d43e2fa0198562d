package preempt

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// masksOf turns a family of sets into sorted masks.
func masksOf(t *testing.T, fam []Set) []uint64 {
	t.Helper()
	out := make([]uint64, len(fam))
	for i, s := range fam {
		var m uint64
		for _, j := range s.Indexes() {
			if j >= 64 {
				t.Fatalf("index %d in %v", j, s)
			}
			m |= 1 << j
		}
		out[i] = m
	}
	slices.Sort(out)
	return out
}

func choiceMask(c Choice) uint64 {
	var m uint64
	for _, i := range c.Indexes {
		m |= 1 << i
	}
	return m
}

// TestChooseMatchesBruteForce compares MinimalSets and Choose with a brute
// force over all subsets on random host-model instances of up to 15
// candidates.
func TestChooseMatchesBruteForce(t *testing.T) {
	const instances = 300
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (instances use seed+k)", seed)
	var calls, subsets, decided int
	for k := range uint64(instances) {
		rng := rand.New(rand.NewPCG(seed+k, 0))
		c := randomCluster(rng, rng.IntN(16))
		n := len(c.leases)
		cands := c.candidates()
		want := bruteMinimal(n, c.feasible)
		n0 := 0
		fam, method := MinimalSets(cands, counted(c.feasible, &n0), DefaultExactLimit)
		if got := masksOf(t, fam); method != Exact || !slices.Equal(got, want) {
			t.Fatalf("seed %d: MinimalSets = %v by %s, brute force %v", seed+k, fam, method, want)
		}
		if len(want) > 0 && want[0] != 0 {
			calls, subsets, decided = calls+n0, subsets+1<<n, decided+1
		}
		for _, p := range []Policy{MOV, MLIP, MOML} {
			checkAgainstRef(t, seed+k, p, c, want)
		}
	}
	t.Logf("%d instances needing a preemption: %d oracle calls for %d subsets", decided, calls, subsets)
}

// checkAgainstRef compares Choose with refChoose on one instance.
func checkAgainstRef(t *testing.T, seed uint64, p Policy, c *cluster, minimal []uint64) {
	t.Helper()
	cands := c.candidates()
	got, err := Choose(p, cands, c.feasible, DefaultExactLimit)
	want, ok := refChoose(p, cands, minimal)
	switch {
	case len(cands) == 0 || !ok:
		if err == nil {
			t.Fatalf("seed %d %s: got %v, want ErrInfeasible", seed, p, got.Indexes)
		}
	case err != nil:
		t.Fatalf("seed %d %s: %v, want set %b", seed, p, err, want)
	case choiceMask(got) != want || got.MinimalSets != len(minimal):
		t.Fatalf("seed %d %s: got %v (%d sets), want mask %b (%d sets)",
			seed, p, got.Indexes, got.MinimalSets, want, len(minimal))
	}
}

// upward returns the oracle "the set contains one of gens" (monotone by
// construction) and its minimal family: the generators with no other
// generator inside them, sorted.
func upward(gens []uint64) (Feasible, []uint64) {
	f := func(s Set) bool {
		m := uint64(0)
		for _, i := range s.Indexes() {
			m |= 1 << i
		}
		for _, g := range gens {
			if g&^m == 0 {
				return true
			}
		}
		return false
	}
	var min []uint64
	for i, g := range gens {
		keep := true
		for j, h := range gens {
			if h&^g == 0 && (h != g || j < i) {
				keep = false // h is inside g (or an earlier copy of g)
				break
			}
		}
		if keep {
			min = append(min, g)
		}
	}
	slices.Sort(min)
	return f, min
}

// atLeast returns the generators of "at least k of n": all k-subsets.
func atLeast(k, n int) []uint64 {
	var gens []uint64
	for m := uint64(0); m < 1<<n; m++ {
		if bits.OnesCount64(m) == k {
			gens = append(gens, m)
		}
	}
	return gens
}

// TestExactUpToTwenty checks the exact search at 18 and 20 candidates on
// oracles whose minimal family is known without a brute force, and counts
// the oracle calls. Any exact method must ask about every minimal feasible
// set and every maximal infeasible set (changing the answer for one of them
// alone keeps the oracle monotone and changes the family), so their number,
// worked out beside each case, is a lower bound; the search must stay
// within 5 times it, far below 2^n.
func TestExactUpToTwenty(t *testing.T) {
	pairs := make([]uint64, 9)
	for i := range pairs {
		pairs[i] = 3 << (2 * i)
	}
	tests := []struct {
		name  string
		n     int
		gens  []uint64
		lower int
	}{
		// 20 singletons; the only maximal infeasible set is {}.
		{"any one of 20", 20, atLeast(1, 20), 20 + 1},
		// The full set; maximal infeasible: the 20 sets missing one.
		{"all of 20", 20, []uint64{1<<20 - 1}, 1 + 20},
		// C(20,2) = 190 pairs; maximal infeasible: the 20 singletons.
		{"at least 2 of 20", 20, atLeast(2, 20), 190 + 20},
		// C(20,3) = 1140 triples; maximal infeasible: the 190 pairs.
		{"at least 3 of 20", 20, atLeast(3, 20), 1140 + 190},
		// {0..9} or {10..19}; maximal infeasible: miss one of each half,
		// 10*10 = 100.
		{"either half of 20", 20, []uint64{1<<10 - 1, (1<<10 - 1) << 10}, 2 + 100},
		// 18 candidates, pairs {2i, 2i+1}: 9 minimal pairs; maximal
		// infeasible: one of each pair, 2^9 = 512. (Any walk over index
		// prefixes meets about 3^9 dead prefixes here.)
		{"one of nine pairs", 18, pairs, 9 + 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, want := upward(tt.gens)
			calls := 0
			fam, method := MinimalSets(make([]Candidate, tt.n), counted(f, &calls), 20)
			if got := masksOf(t, fam); method != Exact || !slices.Equal(got, want) {
				t.Fatalf("got %d sets by %s, want %d by exact", len(got), method, len(want))
			}
			t.Logf("%d minimal sets, %d oracle calls, lower bound %d, 2^%d = %d",
				len(want), calls, tt.lower, tt.n, 1<<tt.n)
			if calls < tt.lower || calls > 5*tt.lower {
				t.Errorf("%d oracle calls, want between %d and %d", calls, tt.lower, 5*tt.lower)
			}
		})
	}
}

// TestExactRandomGenerators compares MinimalSets and Choose with the known
// minimal family of random "contains one of these" oracles over 16 to 20
// candidates.
func TestExactRandomGenerators(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (instances use seed+k)", seed)
	for k := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed+k, 1))
		n := 16 + rng.IntN(5)
		gens := make([]uint64, 1+rng.IntN(30))
		for i := range gens {
			for range 1 + rng.IntN(6) {
				gens[i] |= 1 << rng.IntN(n)
			}
		}
		f, want := upward(gens)
		cands := make([]Candidate, n)
		for i := range cands {
			cands[i] = Candidate{Lease: uint64(100 + rng.IntN(1000)*n + i), VMs: 1 + rng.IntN(3),
				Overhead: time.Duration(rng.IntN(4)) * 100 * time.Second}
		}
		fam, _ := MinimalSets(cands, f, 20)
		if got := masksOf(t, fam); !slices.Equal(got, want) {
			t.Fatalf("seed %d: MinimalSets = %x, want %x", seed+k, got, want)
		}
		for _, p := range []Policy{MOV, MLIP, MOML} {
			got, err := Choose(p, cands, f, 20)
			ref, _ := refChoose(p, cands, want)
			if err != nil || choiceMask(got) != ref {
				t.Fatalf("seed %d %s: got %v %v, want %b", seed+k, p, got.Indexes, err, ref)
			}
		}
	}
}
