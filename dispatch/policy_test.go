package dispatch

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

var t0 = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

func hr(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }

// planned is a planned answer from 0 h to end h.
func planned(name string, cost, end float64) Answer {
	return Answer{Cluster: name, Cost: cost, Start: t0, End: hr(end)}
}

func TestEarliestFinish(t *testing.T) {
	five := []Answer{
		planned("A", 2, 3),
		planned("B", 5, 2),
		planned("C", 1, 2),
		{Cluster: "D", Rejected: true, Reason: "deadline"},
		planned("E", 0, 5),
	}
	for _, c := range []struct {
		name     string
		ans      []Answer
		deadline time.Time
		want     []int
	}{
		// By 4 h: C and B end at 2 h (C cheaper), A at 3 h; E ends at 5 h,
		// D rejects.
		{"deadline 4 h", five, hr(4), []int{2, 1, 0}},
		// An end at the deadline meets it.
		{"deadline 3 h", five, hr(3), []int{2, 1, 0}},
		{"deadline 2.5 h", five, hr(2.5), []int{2, 1}},
		// No deadline: every planned cluster by end.
		{"no deadline", five, time.Time{}, []int{2, 1, 0, 4}},
		// Same end, same cost: by name.
		{"ties by name", []Answer{planned("y", 1, 2), planned("x", 1, 2), planned("z", 0, 2)}, hr(2), []int{2, 1, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := EarliestFinish(c.ans, c.deadline)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("order %v, want %v", got, c.want)
			}
		})
	}
	// Nothing by 1 h: rejected, each cluster's end or reason said.
	_, err := EarliestFinish(five, hr(1))
	if !errors.Is(err, ErrNoCluster) || !strings.Contains(err.Error(), "D: rejected (deadline)") || !strings.Contains(err.Error(), "C: ends 2026-11-26T02:00:00Z") {
		t.Errorf("deadline 1 h: %v, want ErrNoCluster with the reasons", err)
	}
	if _, err := EarliestFinish(five[3:4], time.Time{}); !errors.Is(err, ErrNoCluster) {
		t.Errorf("all rejected: %v", err)
	}
}

func TestEarliestFinishBadInput(t *testing.T) {
	for _, c := range []struct {
		ans  []Answer
		path string
	}{
		{[]Answer{planned("", 0, 1)}, "answers[0].cluster"},
		{[]Answer{planned("a", 0, 1), planned("a", 0, 2)}, "answers[1].cluster"},
		{[]Answer{planned("a", -1, 1)}, "answers[0].cost"},
		{[]Answer{{Cluster: "a", Start: hr(2), End: hr(1)}}, "answers[0].end"},
		{[]Answer{{Cluster: "a"}}, "answers[0]"},
	} {
		_, err := EarliestFinish(c.ans, time.Time{})
		var fe *fielderr.Error
		if !errors.Is(err, ErrInput) || !errors.As(err, &fe) || fe.Path != c.path {
			t.Errorf("%+v: %v, want ErrInput at %s", c.ans, err, c.path)
		}
	}
	if _, err := EarliestFinish(nil, time.Time{}); !errors.Is(err, ErrClusters) {
		t.Errorf("none: %v", err)
	}
}

func TestLookup(t *testing.T) {
	for _, n := range []string{"rr", "lrf", "bcf", "pap-rnd", "pap-rtdp", "earliest-finish", "lrf-rnd", "bcf-rnd"} {
		if _, err := Lookup(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if len(Policies) != 8 {
		t.Errorf("%d policies, want 8", len(Policies))
	}
	_, err := Lookup("pap")
	if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "known: bcf, bcf-rnd, earliest-finish, lrf, lrf-rnd, pap-rnd, pap-rtdp, rr") {
		t.Errorf("unknown: %v", err)
	}
}

// orders runs n leases of type 0 through the policy.
func orders(t *testing.T, name PolicyName, s Setup, n int) [][]int {
	t.Helper()
	d, err := Policies[name](s)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	for range n {
		o, err := d.Order(Lease{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

func TestPolicies(t *testing.T) {
	// lambda 0.1/0.2/0.3, power 4/2/2 on one host each (a fastest).
	cs := []Cluster{cl("a", 1, 0.1, 1), cl("b", 1, 0.2, 1), cl("c", 1, 0.3, 1)}
	cs[0].Power, cs[1].Power, cs[2].Power = 4, 2, 2
	// PAP at rate 1 over a (rho 0.3, theta 1), b (rho 0.6) and an idle
	// c of theta 0.4: all on c (TestPAPSmallRateUsesSmallestPsi).
	papcs := []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5), cl("c", 0.4, 0, 1)}
	for _, c := range []struct {
		name PolicyName
		s    Setup
		want [][]int
	}{
		// The cycle, the rest by index (equal shares).
		{PolicyRR, Setup{Clusters: cs}, [][]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {0, 1, 2}}},
		// LRF shares 5/12, 4/12, 3/12 by RTDP with X = (1, 0, 0):
		// 2.4, 0, 0 -> b; 2.4, 3, 0 -> c; 2.4, 3, 4 -> a. The rest by
		// share: a, b, c.
		{PolicyLRF, Setup{Clusters: cs}, [][]int{{1, 0, 2}, {2, 0, 1}, {0, 1, 2}}},
		// BCF shares 0.5, 0.25, 0.25: 2, 0, 0 -> b; 2, 4, 0 -> c;
		// 2, 4, 4 -> a; 4, 4, 4 -> a; 6, 4, 4 -> b.
		{PolicyBCF, Setup{Clusters: cs}, [][]int{{1, 0, 2}, {2, 0, 1}, {0, 1, 2}, {0, 1, 2}, {1, 0, 2}}},
		// Only c has a share: c, nothing else to try.
		{PolicyPAPRTDP, Setup{Clusters: papcs, Rate: 1}, [][]int{{2}, {2}, {2}}},
		{PolicyPAPRND, Setup{Clusters: papcs, Rate: 1, Rand: rand.New(rand.NewPCG(1, 2))}, [][]int{{2}, {2}, {2}}},
	} {
		t.Run(string(c.name), func(t *testing.T) {
			if got := orders(t, c.name, c.s, len(c.want)); !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("orders %v, want %v", got, c.want)
			}
		})
	}
	// pap-rnd with a hand-made source: PAP's shares at rate 2 put some
	// load on all three (TestPAPSmallRateUsesSmallestPsi); u = 0 draws a.
	d, err := Policies[PolicyPAPRND](Setup{Clusters: papcs, Rate: 2, Rand: rand.New(&fixedSource{u: []float64{0}})})
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := d.Order(Lease{}); o[0] != 0 || len(o) != 3 {
		t.Errorf("pap-rnd u=0: %v, want a first of three", o)
	}
	for _, c := range []struct {
		name PolicyName
		s    Setup
		want error
	}{
		{PolicyPAPRTDP, Setup{Clusters: papcs}, ErrInput},
		{PolicyPAPRND, Setup{Clusters: papcs, Rate: 1}, ErrInput},
		{PolicyPAPRTDP, Setup{Clusters: papcs, Rate: 100}, ErrOverload},
		{PolicyLRF, Setup{Clusters: cs, TypeShares: []float64{0.5}}, ErrInput},
		{PolicyRR, Setup{}, ErrClusters},
		{PolicyEarliestFinish, Setup{}, ErrClusters},
	} {
		if _, err := Policies[c.name](c.s); !errors.Is(err, c.want) {
			t.Errorf("%s %+v: %v, want %v", c.name, c.s, err, c.want)
		}
	}
}

func TestPolicyEarliestFinish(t *testing.T) {
	cs := []Cluster{{Name: "a", Cost: 3}, {Name: "b", Cost: 1}, {Name: "c"}}
	d, err := Policies[PolicyEarliestFinish](Setup{Clusters: cs})
	if err != nil {
		t.Fatal(err)
	}
	// a and b end at 2 h, b cheaper (cost 1 against 3); c ends at 3 h,
	// after the 2.5-h deadline. Names and costs come from the setup.
	ans := []Answer{{Start: t0, End: hr(2)}, {Start: t0, End: hr(2)}, {Start: t0, End: hr(3)}}
	got, err := d.Order(Lease{Deadline: hr(2.5), Answers: ans})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{1, 0}) {
		t.Errorf("order %v, want b, a", got)
	}
	if _, err := d.Order(Lease{Answers: ans[:2]}); !errors.Is(err, ErrInput) {
		t.Errorf("two answers for three clusters: %v", err)
	}
}
