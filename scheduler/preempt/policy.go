package preempt

import (
	"fmt"
	"strings"
)

// Policy names how a set of leases to preempt is chosen (docs/models.md
// §3).
type Policy string

// The preemption policies.
const (
	NOP  Policy = "NOP"  // never preempt: the request is rejected or queued
	MOV  Policy = "MOV"  // minimum overhead: smallest total h(C)
	MLIP Policy = "MLIP" // minimum leases involved: fewest leases
	MOML Policy = "MOML" // fewest leases among the sets with h(C) <= median h(C)
)

// policies lists the valid policies in the order error messages show them.
var policies = []Policy{NOP, MOV, MLIP, MOML}

// Policies returns the valid policies.
func Policies() []Policy {
	return append([]Policy(nil), policies...)
}

// ParsePolicy returns the policy named s, compared case-insensitively. For
// any other name it returns an error wrapping ErrUnknownPolicy that names
// the value and the valid ones.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range policies {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", unknownPolicyError(s)
}

// unknownPolicyError is ParsePolicy's error: it reads as the user's
// mistake, without the package's name ("unknown policy "FOO" (want NOP,
// MOV, MLIP or MOML)"), and matches ErrUnknownPolicy.
type unknownPolicyError string

func (e unknownPolicyError) Error() string {
	names := validPolicies()
	i := strings.LastIndex(names, ", ")
	return fmt.Sprintf("unknown policy %q (want %s or %s)", string(e), names[:i], names[i+2:])
}

func (e unknownPolicyError) Unwrap() error { return ErrUnknownPolicy }

func validPolicies() string {
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// Method says how the minimal sets were found.
type Method string

// The search methods.
const (
	Exact     Method = "exact"     // every minimal set was enumerated
	Heuristic Method = "heuristic" // greedy runs found some minimal sets
)
