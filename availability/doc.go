// Package availability estimates how likely a host is to stay up, from
// its own up/down history, for the availability-aware admission of
// docs/models.md §4 (after the source's seed 002).
//
// # The estimate
//
// A host's estimate A starts at 1 (no history). It changes only when a
// period in which the host was used ends: a period starts when the first
// lease is placed on the host and ends when the last one leaves. Over the
// period the host was up for T_active and down for T_down, and
//
//	A_recent = T_active / (T_active + T_down)
//	A        = w · A_prev · g(t) + (1 − w) · A_recent,   g(t) = exp(−t/τ)
//
// where t is the idle time before the period: from the end of the host's
// previous period to the start of this one (0 for the host's first
// period, so that a new host starts from w · 1 + (1 − w) · A_recent).
// Defaults w = 0.5, τ = 24 h. A period of zero length leaves A as it is.
//
// # The admission test
//
// A lease planned on hosts h₁..hₙ is admitted only if ∏ A_h reaches a
// threshold: the probability that all of its hosts stay up, if they fail
// independently (the product is bora's choice; seed 002 does not say).
//
// The package imports nothing of bora, reads no clock and draws no random
// numbers: the caller passes every time.
package availability
