// Package overhead holds Params, the parameters of the overhead model
// (docs/models.md §2: suspend and resume rates, pause, delta, bandwidth,
// stop, shutdown and enactment times), and the model's formulas for one
// VM and for a lease's VMs: t_s, t_r, t_copy, L^s, L^r and h(L) for each
// way of preempting. The scheduler plans with them (scheduler.Overheads
// is Params) and the fake driver takes its operations' times from them,
// without importing the scheduler.
//
// It imports nothing from bora but fielderr.
package overhead
