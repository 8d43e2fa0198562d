package scheduler

import (
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
)

// Config holds every scheduling setting. The comments name Haizea's option
// where bora keeps its meaning.
type Config struct {
	// Backfilling is conservative (every queued lease holds a reservation),
	// aggressive (the first MaxReservations queued leases hold one) or none
	// (first come, first served: the queue stops at the first lease that
	// cannot start now). Haizea: backfilling.
	Backfilling Backfilling `yaml:"backfilling"`
	// MaxReservations is N of aggressive backfilling. Haizea:
	// backfilling-reservations.
	MaxReservations int `yaml:"max_reservations"`
	// Mapper chooses the hosts of a lease: pack or spread.
	Mapper string `yaml:"mapper"`
	// Policy chooses which leases to preempt: NOP, MOV, MLIP or MOML.
	Policy preempt.Policy `yaml:"preemption.policy"`
	// ExactLimit is the largest number of candidate leases searched exactly.
	ExactLimit int `yaml:"preemption.exact_limit"`
	// Suspension says which leases may be suspended: none, serial (only
	// one-VM leases) or all. Haizea: suspension.
	Suspension Suspension `yaml:"suspension"`
	// Exclusion says which suspend/resume operations may overlap: local
	// (operations on different hosts may run at once) or global (one at a
	// time on the whole cluster). Haizea: suspendresume-exclusion.
	Exclusion Exclusion `yaml:"suspendresume_exclusion"`
	// Migration says whether suspended leases may resume on other hosts:
	// no, yes (memory images are copied) or yes-notransfer (shared storage,
	// no copy). Haizea: migration.
	Migration Migration `yaml:"migration"`
	// Requeue puts cancelled (preempted cancellable) leases back in the
	// queue from scratch instead of ending them.
	Requeue bool `yaml:"requeue"`
	// ThresholdFactor F: a queued suspendable lease is not started in a gap
	// shorter than its duration unless it can run at least F times its
	// suspend+resume overhead there. 0 disables starting in short gaps.
	// Haizea: scheduling-threshold-factor.
	ThresholdFactor float64 `yaml:"scheduling_threshold_factor"`
	// FuturePartialRuns lets a queued lease that holds a reservation under
	// aggressive backfilling, may be suspended and cannot get a whole-length
	// window soon be planned to run in an earlier gap that starts later than
	// now, suspended before the gap ends (docs/models.md §3). It applies
	// only when short runs are on (ThresholdFactor > 0), with the same
	// minimum useful run. Default true.
	FuturePartialRuns bool `yaml:"future_partial_runs"`
	// MaxHeadDelay is the starvation bound of aggressive backfilling: a
	// queued lease that has waited this long (since its submission, or its
	// last suspension) holds a reservation that later advance reservations
	// and deadline leases no longer push back or preempt: they are placed
	// around it or rejected (docs/models.md §3). 0 disables it. Default
	// 12h.
	MaxHeadDelay time.Duration `yaml:"max_head_delay"`
	// NonSchedulable is the time after now in which nothing new may be
	// scheduled to start (immediate leases excepted). Haizea:
	// non-schedulable-interval.
	NonSchedulable time.Duration `yaml:"non_schedulable_interval"`
	// WakeUp, when positive, runs the best-effort queue only at multiples of
	// this interval instead of at every event. Haizea: wakeup-interval.
	WakeUp time.Duration `yaml:"wakeup_interval"`
	// Overheads is the overhead model, with Haizea's shutdown-time,
	// enactment-overhead, override-suspend-time and override-resume-time.
	Overheads Overheads `yaml:"overheads"`
	// ImmediateBootWait is how long an immediate lease may wait for hosts
	// being switched on (docs/models.md §5): one that does not fit now
	// without preempting starts at the end of a planned boot within this
	// tolerance, if it fits there. 0: it never waits.
	ImmediateBootWait time.Duration `yaml:"immediate_boot_wait"`
	// CheckInvariants makes the slot table refuse any over-commitment as it
	// happens (the scheduler panics: it is a bug), and walks the whole table
	// and every plan with Check every 512 decisions.
	CheckInvariants bool `yaml:"check_invariants"`
}

// DefaultConfig is what bora uses when nothing is set.
func DefaultConfig() Config {
	return Config{
		Backfilling:     BackfillConservative,
		MaxReservations: 1,
		Mapper:          "pack",
		Policy:          preempt.MOV,
		ExactLimit:      preempt.DefaultExactLimit,
		Suspension:      SuspensionAll,
		Exclusion:       ExclusionLocal,
		Migration:       MigrationYes,
		Overheads:       DefaultOverheads(),

		FuturePartialRuns: true,
		MaxHeadDelay:      12 * time.Hour,
		ImmediateBootWait: DefaultImmediateBootWait,
	}
}

// DefaultImmediateBootWait is scheduler.immediate_boot_wait's default: 5
// minutes, the default boot time (2 minutes, energy.boot) after the
// default shutdown (1 minute, energy.shutdown) of a host caught shutting
// down, with 2 minutes to spare for a slower boot.
const DefaultImmediateBootWait = 5 * time.Minute

// Validate reports the first setting that cannot be used, naming it.
func (c Config) Validate() error {
	checks := []error{
		checkMode("backfilling", c.Backfilling, ParseBackfilling),
		checkMode("suspension", c.Suspension, ParseSuspension),
		checkMode("suspendresume_exclusion", c.Exclusion, ParseExclusion),
		checkMode("migration", c.Migration, ParseMigration),
		c.Overheads.Validate(),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if _, ok := mappers[c.Mapper]; !ok {
		return fieldErr("mapper", "unknown mapper %q (want %s)", c.Mapper, strings.Join(MapperNames(), ", "))
	}
	if _, err := preempt.ParsePolicy(string(c.Policy)); err != nil {
		return fieldErr("preemption.policy", "%v", err)
	}
	switch {
	case c.Overheads.Local() && c.Migration == MigrationNoTransfer:
		return fieldErr("overheads.storage", "local storage keeps each image on its host's disk, but migration %s resumes elsewhere without copying it (want migration yes or no, or storage shared)", c.Migration)
	case c.Backfilling == BackfillAggressive && c.MaxReservations < 1:
		return fieldErr("max_reservations", "aggressive backfilling needs at least 1, got %d", c.MaxReservations)
	case c.ExactLimit < 0 || c.ExactLimit > 24:
		return fieldErr("preemption.exact_limit", "must be between 0 and 24, got %d", c.ExactLimit)
	case c.ThresholdFactor < 0:
		return fieldErr("scheduling_threshold_factor", "must not be negative, got %g", c.ThresholdFactor)
	case c.NonSchedulable < 0:
		return fieldErr("non_schedulable_interval", "must not be negative, got %s", c.NonSchedulable)
	case c.MaxHeadDelay < 0:
		return fieldErr("max_head_delay", "must not be negative, got %s", c.MaxHeadDelay)
	case c.WakeUp < 0:
		return fieldErr("wakeup_interval", "must not be negative, got %s", c.WakeUp)
	case c.ImmediateBootWait < 0:
		return fieldErr("immediate_boot_wait", "must not be negative, got %s", c.ImmediateBootWait)
	}
	return nil
}

// reservationsAllowed is how many queued leases may hold a reservation.
func (c Config) reservationsAllowed() int {
	switch c.Backfilling {
	case BackfillConservative:
		return int(^uint(0) >> 1)
	case BackfillAggressive:
		return c.MaxReservations
	}
	return 0
}

// operationFor is what preempting l does under this configuration.
func (c Config) operationFor(l *Lease) Operation {
	if !l.Started() {
		return OpUnreserve
	}
	canSuspend := c.Suspension.suspends(l.Req.VMs)
	switch {
	case l.Req.Class == Migratable && canSuspend && c.Migration != MigrationNo:
		return OpMigrate
	case (l.Req.Class == Suspendable || l.Req.Class == Migratable) && canSuspend:
		return OpSuspend
	case c.Requeue:
		return OpRequeue
	}
	return OpCancel
}
