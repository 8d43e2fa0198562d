// Package queueing holds the numerics of PACP, the admission control of
// docs/models.md §4: an M/G/1/K queue of external leases whose service
// time is Gamma-distributed, fitted by moments.
//
// # Layers
//
//   - FitGamma: a Gamma distribution from a mean and a coefficient of
//     variation (shape 1/cv², scale mean·cv²).
//   - Arrivals: a_k, the probability of k Poisson arrivals during one
//     service (negative binomial for Gamma service, Poisson for a
//     deterministic one), in log space, with its tail sums.
//   - Queue.ResponseTimes: the embedded chain at departures, its
//     stationary law, the time averages and E(R_K), the mean response
//     time of admitted jobs, for K = 1, 2, ...
//   - Load, KStar, Explain, RateLimit, Threshold: PACP itself — the
//     service moments of an external lease stretched by local
//     preemptions, the admit limit K* and the RACP limit.
//
// # Numerics
//
// a_k is computed from math.Lgamma, so k and shape in the tens of
// thousands neither overflow nor underflow. The stationary law is
// computed in log space from the level-crossing form of the spec's
// recursion (all terms positive, so there is no cancellation), and
// normalised at the end; see docs/models.md §4.
//
// The package imports nothing of bora but fielderr. It does not log, read
// a clock or draw random numbers: results are functions of the inputs.
package queueing
