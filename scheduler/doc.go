// Package scheduler decides when and where leases run.
//
// A Scheduler owns a slottable.Table and the leases. It never reads the
// clock: each call (Submit, Advance, Finished, Cancel) says what time it is
// and returns the Actions to enact (start, suspend, resume, migrate, stop,
// shutdown). The simulator and the daemon drive the same code.
//
// Every lease holds a plan: a sequence of phases (prepare, run, suspend,
// migrate, resume, stop, shutdown), each reserved in the slot table on the
// lease's hosts. Advance walks the plans as time passes.
//
// Immediate, advance-reservation and deadline leases are decided at once;
// when they do not fit and they are local (or advance reservations), the
// preemption policy (package preempt) chooses a minimal set of external
// leases to cancel, suspend or migrate, whose operations are reserved as
// real intervals before the preempting lease starts (docs/models.md §2
// and §3). Best-effort leases wait in a queue planned with conservative,
// aggressive (EASY) or no backfilling; when a lease ends earlier than
// requested the queue is planned again. Hosts are chosen by a Mapper (pack
// or spread).
package scheduler
