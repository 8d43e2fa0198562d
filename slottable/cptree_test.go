package slottable

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// cpModel is the naive profile the tree is checked against: the delta at
// each key.
type cpModel map[int64][]int64

func (m cpModel) keys() []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestCPTreeAgainstModel adds and takes away deltas at random keys until
// trees of thousands of change points (three and four levels) empty
// again, and after each step compares the usage at a time, the peak over
// an interval, a walk from a time and the whole summary with the naive
// profile, and checks the tree's structure. Odd seeds use three
// dimensions: the tree reads two (cpu and memory, the usual case) in
// loops of their own.
func TestCPTreeAgainstModel(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		dims := 2 + int(seed%2)
		tab := New()
		capy := Resources{1 << 40, 1 << 40}
		if dims == 3 {
			tab = New("disk")
			capy = append(capy, 1<<40)
		}
		if _, err := tab.AddHost("h", capy); err != nil {
			t.Fatal(err)
		}
		p := &tab.cp[0]
		m := cpModel{}
		span := int64(200 + rng.IntN(20000)) // few keys: many merges into one point; many: deep trees
		type op struct {
			k   int64
			res Resources
		}
		var live []op
		steps := 6000
		for i := range 2 * steps {
			var o op
			var sign int64 = +1
			if i < steps && (len(live) == 0 || rng.IntN(4) > 0) {
				o = op{rng.Int64N(span), Resources{rng.Int64N(5) - 1, rng.Int64N(3)}}
				if dims == 3 {
					o.res = append(o.res, rng.Int64N(7)-3)
				}
				if allZero(o.res) {
					o.res[0] = 1
				}
				live = append(live, o)
			} else if len(live) > 0 {
				j := rng.IntN(len(live))
				o = live[j]
				live[j] = live[len(live)-1]
				live = live[:len(live)-1]
				sign = -1
			} else {
				break
			}
			had := m[o.k] != nil
			d := m[o.k]
			if d == nil {
				d = make([]int64, dims)
			}
			for j, v := range o.res {
				d[j] += sign * v
			}
			wantCh := 0
			if allZero(d) {
				delete(m, o.k)
				if had {
					wantCh = -1
				}
			} else {
				m[o.k] = d
				if !had {
					wantCh = +1
				}
			}
			ch := p.add(o.k, o.res, sign)
			p.refreshTop()
			if ch != wantCh {
				t.Fatalf("seed %d step %d: add at %d says %d, want %d", seed, i, o.k, ch, wantCh)
			}
			if i%7 == 0 || p.n < 40 {
				if err := tab.checkCP(0, func(k int64, d []int64) error {
					if !equal(m[k], d) {
						t.Fatalf("seed %d step %d: delta at %d is %v, want %v", seed, i, k, d, m[k])
					}
					return nil
				}); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, i, err)
				}
				if p.n != len(m) {
					t.Fatalf("seed %d step %d: %d change points, want %d", seed, i, p.n, len(m))
				}
			}
			if i%11 == 0 || p.n < 40 {
				checkCPQueries(t, p, m, rng, span, dims)
			}
		}
		if p.root != nilNode || len(p.free) != len(p.nodes) {
			t.Fatalf("seed %d: emptied tree has root %d and %d of %d nodes free", seed, p.root, len(p.free), len(p.nodes))
		}
	}
}

// checkCPQueries compares the tree's queries over a few random intervals
// with the model's answers.
func checkCPQueries(t *testing.T, p *cpTree, m cpModel, rng *rand.Rand, span int64, dims int) {
	t.Helper()
	ks := m.keys()
	cum := make([][]int64, len(ks)) // the usage from each key on
	run := make([]int64, dims)
	var mx []int64
	for i, k := range ks {
		for j, v := range m[k] {
			run[j] += v
		}
		cum[i] = slices.Clone(run)
		if mx == nil {
			mx = slices.Clone(run)
		}
		maxInto(mx, run)
	}
	usageAt := func(at int64) []int64 {
		i, found := slices.BinarySearch(ks, at)
		if found {
			return slices.Clone(cum[i])
		}
		if i == 0 {
			return make([]int64, dims)
		}
		return slices.Clone(cum[i-1])
	}
	for range 4 {
		from := rng.Int64N(span+2) - 1
		to := from + 1 + rng.Int64N(span/3+2)
		switch r := rng.IntN(3); {
		case len(ks) == 0:
		case r == 0: // bounds on and next to change points
			from = ks[rng.IntN(len(ks))] - rng.Int64N(2)
			to = max(from+1, ks[rng.IntN(len(ks))]+rng.Int64N(2))
		case r == 1: // just before and at one change point
			from = ks[rng.IntN(len(ks))] - 1
			to = from + 2
		}
		got := make([]int64, dims)
		p.prefix(from, got)
		if want := usageAt(from); !equal(got, want) {
			t.Fatalf("usage at %d is %v, want %v", from, got, want)
		}
		want := usageAt(from)
		i0, _ := slices.BinarySearch(ks, from+1)
		for i := i0; i < len(ks) && ks[i] < to; i++ {
			maxInto(want, cum[i])
		}
		p.maxUsage(from, to, got)
		if !equal(got, want) {
			t.Fatalf("peak over [%d, %d) is %v, want %v", from, to, got, want)
		}
		usage := make([]int64, dims)
		it := p.seek(from, usage)
		if w := usageAt(from); !equal(usage, w) {
			t.Fatalf("seek(%d) starts at usage %v, want %v", from, usage, w)
		}
		i := i0
		for ; it.n >= 0; i++ {
			k := p.key(it)
			if i >= len(ks) || k != ks[i] {
				t.Fatalf("walk from %d reaches %d at its step %d, want the keys %v", from, k, i, ks)
			}
			if d := p.step(&it); !equal(d, m[k]) {
				t.Fatalf("walk: delta at %d is %v, want %v", k, d, m[k])
			}
		}
		if i != len(ks) {
			t.Fatalf("walk from %d stops before %d", from, ks[i])
		}
	}
	for j := range dims {
		w := p.whole(j)
		if len(ks) == 0 {
			if w.ok {
				t.Fatalf("empty tree has a summary")
			}
			continue
		}
		if !w.ok || w.s != run[j] || w.m != mx[j] {
			t.Fatalf("whole tree summary in dimension %d is %+v, want sum %d and peak %d", j, w, run[j], mx[j])
		}
	}
}
