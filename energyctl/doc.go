// Package energyctl runs an energy policy (package energy) over a live
// scheduler: the controller of docs/models.md §5 that the simulator and
// the daemon share.
//
// A Controller decides with its policy on each arriving local lease
// (BeforeSubmit, called just before the lease is submitted) and on every
// tick of its cron (Step), taking the head of the external queue as the
// request. It computes the policy's inputs from the scheduler's state (V
// over the external leases waiting, C over the switched-on hosts, the
// counts of hosts on, off and booting, the local need, the idle hosts)
// and enacts the decision through the scheduler's power methods:
// PowerOn (booting in time for a reservation), PowerOff, EvacuateHosts.
// It tells its Hooks of every host it switches on or off, so that the
// caller meters them (the simulator) or drives a power driver (the
// daemon).
//
// What the models leave open, and what the controller does:
//
//   - Hosts switched on are the lowest IDs among those off (or shutting
//     down); then, if more are needed, hosts whose boot is planned for
//     later are booted earlier. For a local lease only hosts free over its
//     interval (but for preemptable leases) are taken.
//   - A local lease is never refused for want of hosts switched on: when
//     the policy's decision leaves it short even counting what preemption
//     can free in time, the hosts it lacks are switched on too (Guarded).
//     An immediate lease, which may wait for a boot
//     (scheduler.immediate_boot_wait), is counted now and at the end of
//     each boot planned within that wait; when none has the room, at
//     least one host is switched on, so that it has a boot to wait for.
//   - The scheduler switches hosts on by itself in one case: a preempted
//     migratable deadline lease that can end by its deadline only on a
//     host that is off (docs/models.md §5). It reports those boots
//     (Scheduler.TakeBoots); the controller passes them to its hooks
//     before anything else it does (on a local arrival, a step, a
//     PowerOn), as its own switch-ons, counted in Stats.ForRestart.
//   - A tick does not switch hosts on again for a request it switched
//     hosts on for while they boot.
//   - On a tick the policy is told how much of the head of the external
//     queue the hosts on or booting can hold already (energy.Input.Room,
//     externalRoom): PEMP switches on what the head lacks, not a share of
//     it that would leave it waiting (energy.PEMP).
//   - Consolidation (PEMP, f > 1) empties hosts holding leases, fewest
//     first, only when what runs there fits right away on other
//     switched-on hosts that hold leases (a move needs a destination), and
//     never hosts a local lease being decided could take; idle hosts are
//     left to the grace period. Emptied hosts are switched off once their
//     last reservation is over.
//   - With Config.SwitchOffAhead (energy.switch_off_ahead) a host free
//     until a reservation at least Config.AheadMinGap ahead (BreakEven)
//     is idle for the policies too; switched off, its boot is planned to
//     end when that reservation begins (Scheduler.PowerOffAhead) and the
//     hooks hear of the switch-off and of the planned boot at once. Like
//     any host with a boot planned, it counts as booting, and a request
//     that needs it earlier has its boot moved earlier.
//   - Decisions are made on local arrivals and on the tick, as docs/models.md
//     §5 says; Config.ExternalArrivals adds every external arrival (for
//     experiments).
//   - With quiet (the simulator's trace is over and nothing is planned),
//     a policy that would switch nothing on for the external queue even
//     at an infinite violation risk (GESP) has the head's hosts switched
//     on anyway (Drained): otherwise it would wait forever.
//
// The controller never reads the clock and uses no randomness. It is not
// safe for concurrent use: it belongs to the loop that owns the scheduler.
package energyctl
