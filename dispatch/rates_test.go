package dispatch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRTDPHandWorked(t *testing.T) {
	// P = 0.5/0.3/0.2, cluster 0 fastest (X = 1, 0, 0); values
	// (X_j + Y_j)/P_j, ties to the lowest index:
	//  1: 2, 0, 0 -> 1     2: 2, 3.33, 0 -> 2    3: 2, 3.33, 5 -> 0
	//  4: 4, 3.33, 5 -> 1  5: 4, 6.67, 5 -> 0    6: 6, 6.67, 5 -> 2
	//  7: 6, 6.67, 10 -> 0 8: 8, 6.67, 10 -> 1   9: 8, 10, 10 -> 0
	// 10: 10, 10, 10 -> 0 (3/0.3 is 10.000000000000002: a tie).
	want := []int{1, 2, 0, 1, 0, 2, 0, 1, 0, 0}
	d, err := NewRTDP([]float64{0.5, 0.3, 0.2}, 0, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for range want {
		j, err := d.Next(0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, j)
	}
	if !slices.Equal(got, want) {
		t.Errorf("choices %v, want %v", got, want)
	}
}

func TestRTDPTypesAreSeparate(t *testing.T) {
	// Two types of shares 0.25/0.75: each type runs its own sequence, the
	// same as a lone type's (share(i) scales every P_j^i alike).
	d, _ := NewRTDP([]float64{0.5, 0.3, 0.2}, 0, []float64{0.25, 0.75})
	want := []int{1, 2, 0, 1, 0, 2, 0, 1, 0, 0}
	var a, b []int
	for range want {
		j, _ := d.Next(0)
		a = append(a, j)
		j, _ = d.Next(1)
		b = append(b, j)
		j, _ = d.Next(1)
		b = append(b, j)
	}
	if !slices.Equal(a, want) || !slices.Equal(b[:10], want) {
		t.Errorf("type 0 %v, type 1 %v, want both %v", a, b[:10], want)
	}
	if _, err := d.Next(2); !errors.Is(err, ErrInput) {
		t.Errorf("type 2: %v, want ErrInput", err)
	}
}

func TestRTDPLongRun(t *testing.T) {
	// After n choices cluster j has n*P_j within 3 requests (its
	// proportion within 3/n), for every n up to 5000, and a zero share is
	// never chosen. Not within 1: the fastest cluster's X_j = 1 holds it
	// back one request, and ties going to the lowest index push the
	// low-index clusters ahead; the largest gap measured on these cases
	// is 2.1 (P 0.7/0.1/0.1/0.1, cluster 0 fastest, 2.1 requests behind).
	for _, p := range [][]float64{{0.5, 0.3, 0.2}, {0.1, 0.6, 0, 0.3}, {0.37, 0.63}, {0.05, 0.05, 0.9}, {0.7, 0.1, 0.1, 0.1}} {
		for fast := range p {
			d, err := NewRTDP(p, fast, []float64{1})
			if err != nil {
				t.Fatal(err)
			}
			count := make([]int, len(p))
			for n := 1; n <= 5000; n++ {
				j, _ := d.Next(0)
				count[j]++
				for k := range p {
					if math.Abs(float64(count[k])-float64(n)*p[k]) > 3 || (p[k] == 0 && count[k] > 0) {
						t.Fatalf("P %v fastest %d: after %d, cluster %d has %d, want %v within 3", p, fast, n, k, count[k], float64(n)*p[k])
					}
				}
			}
		}
	}
}

func TestRTDPBadInput(t *testing.T) {
	for _, c := range []struct {
		p, types []float64
		fastest  int
	}{
		{[]float64{0.5, 0.6}, []float64{1}, 0},
		{[]float64{-0.5, 1.5}, []float64{1}, 0},
		{[]float64{0.5, 0.5}, []float64{0.5}, 0},
		{[]float64{0.5, 0.5}, []float64{1}, 2},
		{nil, []float64{1}, 0},
	} {
		if _, err := NewRTDP(c.p, c.fastest, c.types); !errors.Is(err, ErrInput) {
			t.Errorf("%v %v %d: %v, want ErrInput", c.p, c.types, c.fastest, err)
		}
	}
}

func TestBaselineSplits(t *testing.T) {
	cs := []Cluster{cl("a", 1, 0.1, 1), cl("b", 1, 0.2, 1), cl("c", 1, 0.3, 1)}
	cs[0].Power, cs[1].Power, cs[2].Power = 4, 2, 2
	// LRF: sum lambda 0.6; weights 1-1/6, 1-2/6, 1-3/6 = 5/6, 4/6, 3/6,
	// sum 2: 5/12, 4/12, 3/12.
	lrf, err := LeastRateFirst(cs)
	if err != nil {
		t.Fatal(err)
	}
	// BCF: power 4, 2, 2 of 8.
	bcf, err := BiggestClusterFirst(cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"lrf", lrf, []float64{5.0 / 12, 4.0 / 12, 3.0 / 12}}, {"bcf", bcf, []float64{0.5, 0.25, 0.25}}} {
		for j := range c.want {
			if math.Abs(c.got[j]-c.want[j]) > 1e-15 {
				t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
				break
			}
		}
	}
	// No local load anywhere, or one cluster: equal shares.
	idle := []Cluster{cl("a", 1, 0, 1), cl("b", 1, 0, 1)}
	if got, _ := LeastRateFirst(idle); !slices.Equal(got, []float64{0.5, 0.5}) {
		t.Errorf("lrf idle: %v", got)
	}
	if got, _ := LeastRateFirst(cs[:1]); !slices.Equal(got, []float64{1}) {
		t.Errorf("lrf one cluster: %v", got)
	}
	if _, err := BiggestClusterFirst(nil); !errors.Is(err, ErrClusters) {
		t.Errorf("bcf none: %v", err)
	}
}

// fixedSource is a rand.Source whose Float64s are the values given
// (each a multiple of 2^-53).
type fixedSource struct {
	u []float64
	i int
}

func (s *fixedSource) Uint64() uint64 {
	v := s.u[s.i%len(s.u)]
	s.i++
	return uint64(v * (1 << 53))
}

func TestRandom(t *testing.T) {
	// P 0.5/0.3/0.2: u < 0.5 -> 0, u < 0.8 -> 1, else 2.
	src := &fixedSource{u: []float64{0.1, 0.499, 0.5, 0.79, 0.8, 0.999}}
	d, err := NewRandom([]float64{0.5, 0.3, 0.2}, rand.New(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for range 6 {
		got = append(got, d.Next())
	}
	if want := []int{0, 0, 1, 1, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("draws %v, want %v", got, want)
	}
	// A zero share is never drawn, even at u = 0.
	d, _ = NewRandom([]float64{0, 1}, rand.New(&fixedSource{u: []float64{0, 0.5}}))
	if a, b := d.Next(), d.Next(); a != 1 || b != 1 {
		t.Errorf("zero share drawn: %d %d", a, b)
	}
	// Seeded PCG: 10000 draws within 4 standard deviations of n*P.
	d, _ = NewRandom([]float64{0.5, 0.3, 0.2}, rand.New(rand.NewPCG(16, 1)))
	count := make([]int, 3)
	for range 10000 {
		count[d.Next()]++
	}
	for j, p := range []float64{0.5, 0.3, 0.2} {
		if sd := math.Sqrt(10000 * p * (1 - p)); math.Abs(float64(count[j])-10000*p) > 4*sd {
			t.Errorf("cluster %d: %d of 10000, want %v", j, count[j], 10000*p)
		}
	}
	if _, err := NewRandom([]float64{1}, nil); !errors.Is(err, ErrInput) {
		t.Errorf("nil rand: %v", err)
	}
}

func TestCyclic(t *testing.T) {
	d, err := NewCyclic(3)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for range 7 {
		got = append(got, d.Next())
	}
	if want := []int{0, 1, 2, 0, 1, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if _, err := NewCyclic(0); !errors.Is(err, ErrClusters) {
		t.Errorf("0 clusters: %v", err)
	}
}

// TestRTDPTenThousandByType: 10,000 requests of three types drawn at
// random (shares 0.2, 0.5, 0.3) over clusters of shares 0.15, 0.25,
// 0.6: each cluster's share of each type is within 1 % of its target
// (P_j), the check the gateway issue names.
func TestRTDPTenThousandByType(t *testing.T) {
	p, types := []float64{0.15, 0.25, 0.6}, []float64{0.2, 0.5, 0.3}
	d, err := NewRTDP(p, 2, types)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	count := make([][]int, len(types)) // [type][cluster]
	for i := range count {
		count[i] = make([]int, len(p))
	}
	for range 10000 {
		u, typ := rng.Float64(), 0
		for typ < len(types)-1 && u >= types[typ] {
			u -= types[typ]
			typ++
		}
		j, err := d.Next(typ)
		if err != nil {
			t.Fatal(err)
		}
		count[typ][j]++
	}
	for i := range types {
		n := 0
		for _, c := range count[i] {
			n += c
		}
		for j := range p {
			if share := float64(count[i][j]) / float64(n); math.Abs(share-p[j]) > 0.01 {
				t.Errorf("type %d: cluster %d has %.4f of its %d requests, want %v within 0.01", i, j, share, n, p[j])
			}
		}
	}
}
