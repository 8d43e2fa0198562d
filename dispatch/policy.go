package dispatch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// PolicyName names a gateway dispatch policy.
type PolicyName string

// The policies of docs/models.md §6.
const (
	PolicyRR             PolicyName = "rr"
	PolicyLRF            PolicyName = "lrf"
	PolicyBCF            PolicyName = "bcf"
	PolicyPAPRND         PolicyName = "pap-rnd"
	PolicyPAPRTDP        PolicyName = "pap-rtdp"
	PolicyEarliestFinish PolicyName = "earliest-finish"
	// The source's LRF-RND and BCF-RND: lrf's and bcf's shares dispatched
	// at random, as pap-rnd does PAP's.
	PolicyLRFRND PolicyName = "lrf-rnd"
	PolicyBCFRND PolicyName = "bcf-rnd"
)

// Setup is what a policy is built from.
type Setup struct {
	// Clusters are the clusters, in the order Order's indices refer to.
	// earliest-finish reads only their Name and Cost; the others check
	// all fields (Cluster.Validate).
	Clusters []Cluster
	// Rate is the external rate Lambda (pap-rnd and pap-rtdp).
	Rate float64
	// TypeShares are the request types' shares (summing to 1); nil means
	// one type.
	TypeShares []float64
	// Rand is pap-rnd's only source of randomness.
	Rand *rand.Rand
}

// Lease is what a dispatcher is told of one external lease.
type Lease struct {
	// Type is the request type, an index into Setup.TypeShares.
	Type int
	// Deadline (zero: none) and Answers, one per cluster in the order of
	// Setup.Clusters, are read by earliest-finish only.
	Deadline time.Time
	Answers  []Answer
}

// Dispatcher picks the clusters for the leases of a stream.
type Dispatcher interface {
	// Order returns the clusters to try for the lease, best first: the
	// gateway sends it to the first, and to the next when a cluster's
	// admission rejects it. The rate policies count the lease against
	// the first; their order goes on with the other clusters with a
	// positive share by share (ties by index).
	Order(l Lease) ([]int, error)
}

// NewPolicy builds a policy's Dispatcher.
type NewPolicy func(Setup) (Dispatcher, error)

// Policies are the policies by name. lrf and bcf dispatch their shares
// by RTDP's billiard sequence, as pap-rtdp does PAP's, so that each
// compares with pap-rtdp by the split alone; pap-rnd differs from
// pap-rtdp by the dispatch alone, and lrf-rnd and bcf-rnd (the source's
// LRF-RND and BCF-RND) from lrf and bcf.
var Policies = map[PolicyName]NewPolicy{
	PolicyRR:             newRR,
	PolicyLRF:            sharesPolicy(func(s Setup) ([]float64, error) { return LeastRateFirst(s.Clusters) }, false),
	PolicyBCF:            sharesPolicy(func(s Setup) ([]float64, error) { return BiggestClusterFirst(s.Clusters) }, false),
	PolicyPAPRND:         sharesPolicy(papShares, true),
	PolicyPAPRTDP:        sharesPolicy(papShares, false),
	PolicyEarliestFinish: newEarliest,
	PolicyLRFRND:         sharesPolicy(func(s Setup) ([]float64, error) { return LeastRateFirst(s.Clusters) }, true),
	PolicyBCFRND:         sharesPolicy(func(s Setup) ([]float64, error) { return BiggestClusterFirst(s.Clusters) }, true),
}

// Lookup returns the policy named name, or an error wrapping ErrPolicy
// that lists the known names.
func Lookup(name string) (NewPolicy, error) {
	if p, ok := Policies[PolicyName(name)]; ok {
		return p, nil
	}
	var known []string
	for n := range Policies {
		known = append(known, string(n))
	}
	slices.Sort(known)
	return nil, fmt.Errorf("%q (known: %s): %w", name, strings.Join(known, ", "), ErrPolicy)
}

// papShares is PAP's split as shares.
func papShares(s Setup) ([]float64, error) {
	if !(s.Rate > 0) {
		return nil, fielderr.Wrap(ErrInput, "rate", "PAP needs a positive external rate, not %v", s.Rate)
	}
	split, err := PAP(s.Clusters, s.Rate)
	if err != nil {
		return nil, err
	}
	for j := range split {
		split[j] /= s.Rate
	}
	return split, nil
}

// typeShares is s.TypeShares, or one type.
func typeShares(s Setup) []float64 {
	if s.TypeShares == nil {
		return []float64{1}
	}
	return s.TypeShares
}

// rateDispatcher dispatches by shares: next picks the first cluster.
type rateDispatcher struct {
	shares []float64
	next   func(typ int) (int, error)
}

func (d *rateDispatcher) Order(l Lease) ([]int, error) {
	first, err := d.next(l.Type)
	if err != nil {
		return nil, err
	}
	order := []int{first}
	var rest []int
	for j, p := range d.shares {
		if j != first && p > 0 {
			rest = append(rest, j)
		}
	}
	slices.SortStableFunc(rest, func(a, b int) int {
		switch {
		case d.shares[a] > d.shares[b]:
			return -1
		case d.shares[a] < d.shares[b]:
			return 1
		}
		return 0
	})
	return append(order, rest...), nil
}

// sharesPolicy builds a policy from a split: by RTDP, or at random.
func sharesPolicy(split func(Setup) ([]float64, error), random bool) NewPolicy {
	return func(s Setup) (Dispatcher, error) {
		p, err := split(s)
		if err != nil {
			return nil, err
		}
		ts := typeShares(s)
		if err := checkShares("type_shares", ts); err != nil {
			return nil, err
		}
		if random {
			r, err := NewRandom(p, s.Rand)
			if err != nil {
				return nil, err
			}
			return &rateDispatcher{shares: p, next: func(typ int) (int, error) {
				if typ < 0 || typ >= len(ts) {
					return 0, fielderr.Wrap(ErrInput, "type", "request type %d out of 0..%d", typ, len(ts)-1)
				}
				return r.Next(), nil
			}}, nil
		}
		r, err := NewRTDP(p, fastest(s.Clusters), ts)
		if err != nil {
			return nil, err
		}
		return &rateDispatcher{shares: p, next: r.Next}, nil
	}
}

// newRR is round robin over the clusters, whatever the type.
func newRR(s Setup) (Dispatcher, error) {
	if err := validateAll(s.Clusters); err != nil {
		return nil, err
	}
	c, err := NewCyclic(len(s.Clusters))
	if err != nil {
		return nil, err
	}
	eq := normalise(make([]float64, len(s.Clusters)))
	return &rateDispatcher{shares: eq, next: func(int) (int, error) { return c.Next(), nil }}, nil
}

// earliest is earliest-finish over the setup's clusters.
type earliest struct{ cs []Cluster }

func newEarliest(s Setup) (Dispatcher, error) {
	if len(s.Clusters) == 0 {
		return nil, fmt.Errorf("earliest-finish over no cluster: %w", ErrClusters)
	}
	return &earliest{cs: s.Clusters}, nil
}

// Order is EarliestFinish over l.Answers, one per cluster, named and
// costed from the setup.
func (d *earliest) Order(l Lease) ([]int, error) {
	if len(l.Answers) != len(d.cs) {
		return nil, fielderr.Wrap(ErrInput, "answers", "%d answers for %d clusters", len(l.Answers), len(d.cs))
	}
	ans := slices.Clone(l.Answers)
	for i := range ans {
		ans[i].Cluster, ans[i].Cost = d.cs[i].Name, d.cs[i].Cost
	}
	return EarliestFinish(ans, l.Deadline)
}
