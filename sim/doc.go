// Package sim is bora's discrete-event simulator: it runs the real
// scheduler (package scheduler) over a list of requests on a simulated
// clock, plays the part of the driver, and returns a report.Report with
// the metrics of docs/models.md §7, the lease table, the Gantt
// intervals and the utilisation samples.
//
// # Use
//
//	cfg := sim.Config{
//		Name:      "MOV",
//		Cluster:   sim.Cluster{Hosts: 144, CPU: 100, Memory: 1024}, // hundredths of a core, MB
//		Scheduler: scheduler.DefaultConfig(),
//	}
//	rep, err := sim.Run(cfg, reqs) // reqs from workload.ReadFile, for instance
//
// Run fails only when the configuration is invalid (or, with
// Scheduler.CheckInvariants, when the final scheduler.Check fails); an
// invalid request is not an error: the scheduler rejects it with a reason
// that the report shows. Each Run builds its own slot table and scheduler,
// so runs are independent and may go in parallel (bora simulate runs a
// sweep that way). A run is reproducible: the same inputs give the same
// report, except Metrics.WallSeconds, the only reading of the real clock.
//
// # The clock and the loop
//
// Request times are offsets from Epoch (2000-01-01 UTC). The loop jumps
// to the earliest of: the next arrival, the scheduler's NextEvent, and
// the next real end of a running lease. At that time it first reports the
// real ends that are due (Scheduler.Finished), then calls
// Scheduler.Advance, then submits the arrivals that are due. It stops
// when none of the three is left.
//
// # Playing the driver
//
// The simulator knows each lease's real run time (Request.RealDuration:
// Request.Real, capped at the requested Duration); the scheduler plans
// with the requested duration only. On an ActRun action the simulated VMs
// start computing and their real end is put on a heap; on suspend,
// shutdown or done they stop and keep the real time they have left; on
// stop they lose their work (a requeued lease starts from scratch). A
// lease whose real end comes before its reserved run ends is reported to
// the scheduler with Finished, which frees the rest of the reservation.
// Every other operation (start, suspend, migrate, resume, shutdown)
// takes exactly the time the scheduler reserved for it, and never fails.
//
// The scheduler's Record hook gives every reservation as it was really
// used; those intervals become the Gantt chart and the utilisation.
//
// # Admission
//
// With Config.Admission, external requests pass the admission stage of
// docs/models.md §4 (package admission, admission.go) before the energy
// hook and Scheduler.Submit: one rejected there is recorded with
// Scheduler.Refuse (reason admission-limit) and never reaches the
// scheduler. Every arrival and every lease that ends its full time feed
// the stage's estimator (the end with the lease's real run time and its
// share of the cluster's cpu); the limit is computed again at the times
// of its cron, which are events of the loop while anything else is left
// to happen, and at any event once the window has moved by its share.
// The report then adds the admission metrics. Without it, nothing of this
// runs and the report is what it was.
//
// # Stepping from outside
//
// Stepper is the same loop driven by a gateway (package federation):
// AdvanceTo(t) runs the events before t and opens the one at t up to its
// arrivals (the local requests due are in), DryRun and Submit decide an
// external request at t (Submit returns the admission stage's refusal
// instead of recording a rejected lease, so that the gateway may try
// another cluster), and Finish runs the rest and reports. Run is the
// loop over one list; a cluster handed every external request at its
// arrival reports exactly what Run reports (TestStepperMatchesRun).
//
// # Stopping and progress
//
// RunContext checks its context after every event of the loop and
// returns an error wrapping ErrStopped (and the context's cause) that
// says how far the run got; Config.Progress, when set, is called after
// every event with the simulated time reached and a way to count the
// leases done. Neither decides anything: a run that is not stopped
// reports exactly what Run does.
package sim
