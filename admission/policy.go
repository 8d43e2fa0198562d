package admission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bora-sched/bora/queueing"
)

// PolicyName names an admission policy (docs/models.md §4).
type PolicyName string

// The policies.
const (
	AcceptAll  PolicyName = "accept-all"    // CACP: no limit (an infinite queue)
	OneAtATime PolicyName = "one-at-a-time" // AACP: K = 1
	Rate       PolicyName = "rate"          // RACP: K = floor(mu_e / lambda)
	PACP       PolicyName = "pacp"          // PACP: K* of the M/G/1/K model
)

// Inputs are what a policy decides from: the estimated load, the
// threshold D in seconds (0 when not known yet) and the cap on K.
type Inputs struct {
	Load      queueing.Load `json:"load"`
	Threshold float64       `json:"threshold_s"`
	MaxK      int           `json:"max_k"`
}

// Limit is a policy's answer: at most K admitted, unfinished external
// leases, or no limit at all (Unlimited: accept-all, or a policy whose
// inputs are still warming up). K = 0 admits none. Capped says the
// policy's own limit is at least the cap MaxK, which K then is;
// Saturated that the local load alone saturates the cluster (rho_l >= 1,
// K = 0).
type Limit struct {
	K         int  `json:"k"`
	Unlimited bool `json:"unlimited,omitempty"`
	Capped    bool `json:"capped,omitempty"`
	Saturated bool `json:"saturated,omitempty"`
}

// Admits reports whether a new external lease is admitted when admitted
// ones are not yet finished.
func (l Limit) Admits(admitted int) bool { return l.Unlimited || admitted < l.K }

// Policy computes the limit from the model's inputs. Its errors are the
// queueing package's for inputs it cannot use.
type Policy interface {
	Limit(in Inputs) (Limit, error)
}

// PolicyFunc is a Policy written as a function.
type PolicyFunc func(Inputs) (Limit, error)

// Limit calls f.
func (f PolicyFunc) Limit(in Inputs) (Limit, error) { return f(in) }

// need is what of the estimate a policy reads: it waits for those inputs
// to warm up (estimator.go).
type need struct {
	rates     bool // lambda and omega (mu_e)
	all       bool // every input of queueing.Load
	threshold bool // D
}

type entry struct {
	policy Policy
	needs  need
}

// policies is the registry: every name and what it computes.
var policies = map[PolicyName]entry{
	AcceptAll:  {PolicyFunc(func(Inputs) (Limit, error) { return Limit{Unlimited: true}, nil }), need{}},
	OneAtATime: {PolicyFunc(func(Inputs) (Limit, error) { return Limit{K: 1}, nil }), need{}},
	Rate:       {PolicyFunc(rateLimit), need{rates: true}},
	PACP:       {PolicyFunc(pacpLimit), need{rates: true, all: true, threshold: true}},
}

// Lookup returns the policy of a name, or nil when there is none.
func Lookup(name PolicyName) Policy {
	if e, ok := policies[name]; ok {
		return e.policy
	}
	return nil
}

// rateLimit is RACP: K = floor(mu_e / lambda), mu_e = 1/omega, capped
// (queueing.RateLimit).
func rateLimit(in Inputs) (Limit, error) {
	k, err := queueing.RateLimit(in.Load.LocalRate, in.Load.ExternalMean, in.MaxK)
	if err != nil {
		return Limit{}, err
	}
	return Limit{K: k, Capped: k == in.MaxK}, nil
}

// pacpLimit is PACP: K* = max{K >= 1 : E(R_K) <= D} (queueing.KStar).
func pacpLimit(in Inputs) (Limit, error) {
	l, err := queueing.KStar(in.Load, in.Threshold, in.MaxK)
	if err != nil {
		return Limit{}, err
	}
	return Limit{K: l.K, Capped: l.Capped, Saturated: l.Saturated}, nil
}

// PolicyNames lists the policies' names, sorted.
func PolicyNames() []string {
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return names
}

// ParsePolicy reads a policy name (any case, surrounding blanks ignored).
// An unknown name is an error wrapping ErrUnknownPolicy that names it and
// lists the known ones.
func ParsePolicy(s string) (PolicyName, error) {
	n := PolicyName(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := policies[n]; !ok {
		return "", fmt.Errorf("%w %q (want %s)", ErrUnknownPolicy, s, strings.Join(PolicyNames(), ", "))
	}
	return n, nil
}
