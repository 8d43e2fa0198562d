package queueing

import "errors"

// ErrInvalid is wrapped by every error this package returns for a bad
// input (negative, NaN or infinite rate, a non-positive coefficient of
// variation for a Gamma fit, a K below 1). The error is a
// *fielderr.Error whose Path names the input.
var ErrInvalid = errors.New("invalid queueing input")

// ErrSaturated is returned by Load.Service when the local load alone
// keeps the cluster busy (rho_l = lambda/mu_l >= 1): an external lease is
// preempted for ever and its service time has no finite mean. KStar and
// Explain do not return it: they answer K* = 0.
var ErrSaturated = errors.New("local load saturates the cluster")
