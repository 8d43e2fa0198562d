// Package admission is the admission stage of external leases
// (docs/models.md §4): before an external request reaches the scheduler,
// a Controller decides from the number of admitted external leases not
// yet finished whether the cluster takes it, or rejects it at once with
// a reason a gateway can act on.
//
// # Parts
//
//   - Policy: the limit K on admitted, unfinished external leases from
//     the model's inputs, one per name (accept-all, one-at-a-time, rate,
//     pacp), in a registry by name (Lookup, PolicyNames); ParsePolicy
//     reads a name.
//   - Estimator: the inputs of queueing.Load (local and external arrival
//     rates, the local service time's mean and cv, the external mean
//     service time) and the external mean run time, from observations
//     over a sliding window, with the warm-up rule of docs/models.md §4.
//     Its state is a Snapshot that round-trips through JSON.
//   - Controller: a policy, an estimator, the threshold D and the current
//     limit. Recompute (on the caller's cron schedule, or Tick when the
//     window has moved by a set share) computes the limit again; Decide
//     answers admit or reject, with the reason
//     `admission-limit: 7 external leases admitted, limit 7 (pacp, D = 1,800 s)`.
//
// # Use
//
// The simulator (package sim) and the daemon use it the same way: feed
// every arrival (Observe at submission) and every end of a lease
// (Observe with its run time and its share of the cluster), call Tick
// before each decision and Recompute at the cron's times
// (Controller.NextCron), and ask Decide for each external request with
// the number of external leases it admitted that are not finished yet
// (the caller counts them: done, cancelled, failed or rejected later by
// the scheduler are finished). A rejected request is recorded with
// scheduler.Scheduler.Refuse and the decision's reason and detail. The
// package reads no clock and draws no random numbers: every call takes
// the time, so a run is reproducible and a daemon restarts from a
// Controller.Snapshot.
package admission
