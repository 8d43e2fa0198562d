package dispatch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRandomShares: lrf-rnd and bcf-rnd draw the first cluster by their
// shares (NewRandom: u below the cumulative share), the rest by share.
// LRF over lambda 0.1/0.2/0.3 gives 5/12, 4/12, 3/12: u = 0.4 < 5/12 is
// a, u = 0.5 is b, u = 0.9 is c. BCF over power 4/2/2 gives 0.5, 0.25,
// 0.25: u = 0.4 is a, 0.6 is b, 0.9 is c.
func TestRandomShares(t *testing.T) {
	cs := []Cluster{cl("a", 1, 0.1, 1), cl("b", 1, 0.2, 1), cl("c", 1, 0.3, 1)}
	cs[0].Power, cs[1].Power, cs[2].Power = 4, 2, 2
	for _, c := range []struct {
		name PolicyName
		u    []float64
		want [][]int
	}{
		{PolicyLRFRND, []float64{0.4, 0.5, 0.9}, [][]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}}},
		{PolicyBCFRND, []float64{0.4, 0.6, 0.9}, [][]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}}},
	} {
		got := orders(t, c.name, Setup{Clusters: cs, Rand: rand.New(&fixedSource{u: c.u})}, len(c.want))
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: orders %v, want %v", c.name, got, c.want)
		}
	}
}
