// Package energy is bora's energy management (docs/models.md §5): the
// power states of hosts and the energy they draw, the fuzzy controller of
// PEMP, and the policies that decide when hosts are switched on and off
// (always-on, gesp, sesp, pemp).
//
// The package only computes. It does not know the scheduler: the
// simulator and the daemon read their live state, hand the numbers in,
// and enact what comes back. It never reads the clock (every call takes
// now) and uses no randomness, so a run is reproducible.
//
// # Parts
//
//   - System (fuzzy.go): triangular sets, singleton fuzzifier, product
//     inference, weighted-average defuzzifier; DefaultSystem is the
//     rule base of docs/models.md §5, FuzzyConfig its configuration form.
//   - PowerModel and Meter (power.go, meter.go): watts per state (idle and
//     busy interpolated by the host's busy fraction), the legal cycle
//     off -> booting -> on -> shutting-down -> off, and the exact integral
//     of power into kWh per host and in total, with steps for a plot.
//   - ViolationRisk, Utilisation and Booked (inputs.go): the controller's
//     inputs V and C.
//   - Policy, Policies and NewPolicy (policy.go): the decision for one
//     request, chosen by name.
//   - ViolationRate (violation.go): the waiting-threshold violation rate a
//     run reports.
//
// # Driving it
//
// At start, build the policy with NewPolicy(name, params) and a Meter
// with NewMeter(model, hosts, start, state). Then, on each arriving local
// lease and on every tick of the energy cron (taking the head of the
// external queue as the request, Local false):
//
//  1. From the live state compute V = ViolationRisk(external queue, now,
//     params.Alpha) and C = Utilisation(on, Booked(now, reservations on
//     the switched-on hosts)).
//  2. Fill an Input: Need (hosts the request needs), Local, V, C, the
//     counts of hosts on, off and booting, the hosts local leases still
//     require at the request's start, and the idle hosts with the time
//     they became idle.
//  3. d := policy.Decide(in).
//  4. Enact d: switch on d.SwitchOn hosts (a local request takes what it
//     still lacks by preemption, as the scheduler decides); pick
//     d.Consolidate hosts with FewestLeases (excluding d.SwitchOff), move
//     or preempt their leases per class, and switch them off; switch off
//     d.SwitchOff. Log d.Reason and d.Rule.
//  5. Tell the Meter every power transition as it happens: Set(now, host,
//     Booting) when the power-on starts, Set(now, host, On) when it is
//     done (model.Boot later in the simulator), and likewise
//     ShuttingDown, Off. Tell it SetLoad when the VMs on a host change, if
//     idle and busy watts differ.
//
// Policies are stateless: a tick that finds the same request still waiting
// decides again from scratch. The caller must not switch hosts on twice
// for one request, e.g. by skipping a request it already switched hosts on
// for while they are booting.
//
// At the end, Meter.Energy(end) gives energy_kwh, Meter.Samples the power
// over time, and ViolationRate over the finished external leases
// violation_rate; Meter.Counts feeds the hosts-by-power-state gauges.
package energy
