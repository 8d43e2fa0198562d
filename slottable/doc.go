// Package slottable is the slot table of the scheduler: which resources
// of which host are reserved over which intervals of time, and queries on
// that (what is used over an interval, how many VMs of a size fit, when
// is the earliest time N of them fit).
//
// # Data structures
//
// Every host's usage is a step function of time, stored as its change
// points: at each time where some reservation starts or ends, the delta
// vector (one entry per resource dimension) by which the usage changes
// there. The change points of a host are the entries of a B+-tree keyed
// by time (leaves and inner nodes of up to 32 entries, leaves linked in
// time order). Beside each child an inner node keeps two aggregates of the
// child's change points, per dimension: the sum of their deltas and the
// maximum prefix sum over them in time order. With them the usage at t
// (the sum of deltas at keys <= t) and the maximum usage over [from, to)
// (the usage at from plus the best prefix sum of the deltas in (from,
// to)) are read on a few root-to-leaf paths, O(log n). Adding or removing
// a reservation adds its vector at its start and subtracts it at its end,
// rewriting one path each; a change point whose delta becomes all zero is
// deleted from the tree. Each host's nodes live in the host's own flat
// arrays (indices, not pointers), so a Clone is a handful of slice copies,
// and the wide nodes keep the paths short: at a thousand reservations a
// host, a binary tree's every step down was a cache miss.
//
// An ordered multiset, a sorted array of sorted blocks, holds the union
// of every host's change points (time -> number of hosts with a change
// point there), for ChangePoints and NextChangeAfter.
//
// Each host's reservations also form an interval tree, a B+-tree of
// their slots in (start, ID) order whose inner nodes keep the latest end
// under each child, for ReservationsOn, Overlapping, LatestEnd and the
// fallback paths that must see individual reservations (queries with an
// Ignore function). A map from ID to slot and one from lease to IDs
// complete the indexes.
//
// # Queries
//
// Used, Available and FitCount without an ignore function are O(log n).
// With one, they walk the host's change points in the interval and undo
// the ignored reservations' deltas on the way.
//
// EarliestFit is a sweep rather than a re-scan per candidate start. For
// each allowed host it walks the change points from the query's From
// once, building the step function c(t) of how many VMs fit (capped at N);
// a stack (as in the largest-rectangle-in-a-histogram sweep) turns that
// into level intervals, for each k the maximal intervals [a, b) where at
// least k VMs fit. A level interval at least Duration long lets the host
// hold one VM for any start in [a, b-Duration]. Sweeping these windows of
// start times in time order gives the first start where the windows open
// add up to N. The walk goes up to a horizon that grows geometrically
// (From+Duration+2·Duration, then ×4) until an answer is found before it,
// or no change point lies beyond it, so the cost follows how far ahead
// the answer is rather than the size of the whole schedule.
//
// # Time
//
// Times are time.Time at the API and int64 nanoseconds since the Unix
// epoch inside; the zero time is minus infinity. Reservations keep the
// Start and End they were given; computed times (change points, fits) are
// returned in the location of the time the caller passed in.
//
// # Checking
//
// With SetChecking(true), Add and a lengthening SetEnd refuse to put a
// host over capacity (ErrOverCapacity) and leave the table unchanged.
// Check verifies capacity and every internal invariant at any time.
package slottable
