// Package daemon is borad: one scheduling loop that owns the scheduler and
// its slot table, a state store every decision is committed to before it
// is enacted, an executor that enacts decisions through a driver, and the
// Service the HTTP API calls.
//
// Everything reaches the loop as an event: API calls, driver completions
// and failures, VMs that end or die behind bora's back, timers. The loop
// takes the events waiting, applies them to the scheduler, advances it to
// the clock's time, commits every lease whose saved form changed in one
// store transaction, and only then answers the API callers and hands the
// actions to the executor. A crash at any point loses nothing that was
// acknowledged: on start the daemon restores the scheduler from the store
// (scheduler.Restore), re-enacts the operation each lease was in the
// middle of (driver operations are idempotent), and reconciles the store
// with what the driver reports (reconcile.go).
//
// Every lease request, from the API, the OpenNebula intake or the
// emulated workload, takes one submission path in the loop (submit.go):
// validation, admission (external leases), the energy hook, the
// scheduler. Calls to outside systems that a submission decides (the
// intake's OpenNebula annotations) are committed with it and made after
// the commit, never in the loop (sourcecalls.go).
package daemon
