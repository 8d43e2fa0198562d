package dispatch

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// stream is requests named by the given names, arriving at the given
// seconds.
func stream(names []string, at []int) []scheduler.Request {
	var out []scheduler.Request
	for i, n := range names {
		out = append(out, scheduler.Request{Name: n, Arrival: time.Duration(at[i]) * time.Second, VMs: 1})
	}
	return out
}

func names(reqs []scheduler.Request) []string {
	out := []string{}
	for _, r := range reqs {
		out = append(out, r.Name)
	}
	return out
}

func TestRoundRobin(t *testing.T) {
	for _, c := range []struct {
		name string
		reqs []scheduler.Request
		n    int
		want [][]string
	}{
		// E1..E7 in order: 1, 4, 7 to cluster 0; 2, 5 to 1; 3, 6 to 2.
		{"seven over three", stream([]string{"E1", "E2", "E3", "E4", "E5", "E6", "E7"}, []int{1, 2, 3, 4, 5, 6, 7}), 3,
			[][]string{{"E1", "E4", "E7"}, {"E2", "E5"}, {"E3", "E6"}}},
		// Given out of order: arrival order is B(1) C(2) A(3) D(3): A
		// before D at 3 s as given. Round robin over 2: B, A / C, D.
		{"arrival order, ties as given", stream([]string{"A", "B", "C", "D"}, []int{3, 1, 2, 3}), 2,
			[][]string{{"B", "A"}, {"C", "D"}}},
		// Fewer requests than clusters: the last cluster gets none.
		{"two over three", stream([]string{"E1", "E2"}, []int{5, 9}), 3, [][]string{{"E1"}, {"E2"}, {}}},
		{"one cluster", stream([]string{"E1", "E2"}, []int{5, 9}), 1, [][]string{{"E1", "E2"}}},
		{"empty", nil, 2, [][]string{{}, {}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := RoundRobin(c.reqs, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d shares, want %d", len(got), len(c.want))
			}
			for i := range got {
				if g := names(got[i]); !slices.Equal(g, c.want[i]) {
					t.Errorf("cluster %d: %v, want %v", i, g, c.want[i])
				}
			}
		})
	}
}

func TestRoundRobinKeepsInput(t *testing.T) {
	in := stream([]string{"A", "B", "C"}, []int{3, 1, 2})
	if _, err := RoundRobin(in, 2); err != nil {
		t.Fatal(err)
	}
	if g := names(in); !slices.Equal(g, []string{"A", "B", "C"}) {
		t.Errorf("the input was reordered: %v", g)
	}
}

func TestRoundRobinNoClusters(t *testing.T) {
	for _, n := range []int{0, -1} {
		if _, err := RoundRobin(stream([]string{"E1"}, []int{1}), n); !errors.Is(err, ErrClusters) {
			t.Errorf("n=%d: %v, want ErrClusters", n, err)
		}
	}
}

func TestMerge(t *testing.T) {
	local := stream([]string{"L1", "L2", "L3"}, []int{1, 4, 4})
	ext := stream([]string{"E1", "E2", "E3"}, []int{0, 4, 9})
	// By arrival: E1(0) L1(1), then at 4 s the local L2 L3 before E2, then E3(9).
	want := []string{"E1", "L1", "L2", "L3", "E2", "E3"}
	if g := names(Merge(local, ext)); !slices.Equal(g, want) {
		t.Errorf("merged %v, want %v", g, want)
	}
	if g := names(Merge(nil, ext)); !slices.Equal(g, []string{"E1", "E2", "E3"}) {
		t.Errorf("no local: %v", g)
	}
}

func TestSplitsRegistry(t *testing.T) {
	if _, ok := Splits["round-robin"]; !ok || len(Splits) != 1 {
		t.Errorf("splits %v, want round-robin", Splits)
	}
}
