// Package preempt chooses which preemptable leases to preempt so that a
// request fits (docs/models.md §3). It knows nothing about hosts: the
// caller passes the candidates (lease id, VM count, preemption overhead h(L)
// of docs/models.md §2) and a monotone feasibility oracle that says
// whether the request fits once a given set of candidates is preempted.
//
// # Minimal sets
//
// Only minimal sets count: feasible, and infeasible without any one member.
// MinimalSets finds them and Choose applies a policy to them:
//
//   - NOP never preempts (ErrNoPreemption);
//   - MOV picks the set with the smallest total overhead h(C);
//   - MLIP picks the set with the fewest leases;
//   - MOML picks the set with the fewest leases among those whose h(C) is at
//     most alpha, the median h(C) over the minimal sets considered (for an
//     even count, the mean of the two middle values).
//
// # Tie-break
//
// Whatever the policy, ties are broken by lower total overhead, then fewer
// VMs preempted, then the lexicographically lower ascending list of lease
// ids. Lease ids are unique (Choose checks), so no two sets tie on all
// three: the choice is a function of the candidates and the oracle alone.
//
// # Exact search
//
// With at most exactLimit candidates (DefaultExactLimit is 16; the limit is
// capped at MaxExactLimit) the search is exact, by dualize and advance. It
// keeps the minimal sets found so far and the minimal transversals of that
// family (the minimal sets meeting each found set), updated by Berge's
// step. The complement of a transversal is a maximal set that contains no
// found set, so by monotonicity one oracle call settles it: infeasible, it
// is a maximal infeasible set; feasible, it contains a new minimal set,
// which QuickXplain extracts in about 2k log2(n/k) calls for k members.
// The search ends when every complement is infeasible: then every feasible
// set contains a found one. Every answer is memoised. Since any exact
// method must ask about each minimal set and each maximal infeasible set,
// the call count stays within a small factor of that lower bound, far
// below 2^n: unlike a walk over subsets, candidates that are useless
// without a partner do not multiply the work.
//
// # Heuristic
//
// Above the limit a bounded greedy is used. Three orderings of the
// candidates are tried, one per policy: MOV's, smallest overhead per VM
// first; MLIP's, most VMs first; MOML's, MLIP's with the candidates whose
// own overhead exceeds the median single-candidate overhead moved to the
// end (used only when the others are not enough). A run adds candidates in
// order until the set is feasible, then drops members in the reverse order
// of their addition whenever the set stays feasible without them, which
// leaves a minimal set. Each ordering runs plainly, then with each of its
// next 8 candidates forced first, then with each of its first 8 left out
// (leaving one out is what lets a run get past a cheap group to a set of
// fewer leases). The distinct minimal sets found form the family the policy
// and tie-break choose from; MOML's median is taken over that family. The
// oracle is asked at most 102n+2 times for n candidates (each of the 51
// runs costs at most 2n calls, answers are memoised), and the Choice
// reports Method Heuristic.
package preempt
