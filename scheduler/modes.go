package scheduler

import (
	"fmt"
	"strings"
)

// The values of the scheduler's enumerated settings, as typed constants:
// the code compares against these, never against bare strings. The
// configuration loader decodes them with the Parse functions (an unknown
// value is refused there, naming the key, in the file and in --set alike)
// and Config.Validate checks them again for a Config built in code.

// Backfilling is how many queued best-effort leases hold a reservation.
type Backfilling string

// The backfilling modes.
const (
	BackfillConservative Backfilling = "conservative" // every queued lease holds one
	BackfillAggressive   Backfilling = "aggressive"   // the first MaxReservations do
	BackfillNone         Backfilling = "none"         // first come, first served
)

// Suspension says which leases may be suspended.
type Suspension string

// The suspension modes.
const (
	SuspensionNone   Suspension = "none"   // no lease
	SuspensionSerial Suspension = "serial" // one-VM leases only
	SuspensionAll    Suspension = "all"    // every suspendable or migratable lease
)

// Exclusion says which suspend/resume operations may overlap.
type Exclusion string

// The exclusion modes.
const (
	ExclusionLocal  Exclusion = "local"  // operations on different hosts may run at once
	ExclusionGlobal Exclusion = "global" // one at a time on the whole cluster
)

// Migration says whether suspended leases may resume on other hosts.
type Migration string

// The migration modes.
const (
	MigrationNo         Migration = "no"             // resume where suspended
	MigrationYes        Migration = "yes"            // elsewhere, copying the memory images
	MigrationNoTransfer Migration = "yes-notransfer" // elsewhere, shared storage: no copy
)

// ParseBackfilling reads a backfilling mode.
func ParseBackfilling(v string) (Backfilling, error) {
	return parseMode(v, BackfillConservative, BackfillAggressive, BackfillNone)
}

// ParseSuspension reads a suspension mode.
func ParseSuspension(v string) (Suspension, error) {
	return parseMode(v, SuspensionNone, SuspensionSerial, SuspensionAll)
}

// ParseExclusion reads a suspend/resume exclusion mode.
func ParseExclusion(v string) (Exclusion, error) {
	return parseMode(v, ExclusionLocal, ExclusionGlobal)
}

// ParseMigration reads a migration mode.
func ParseMigration(v string) (Migration, error) {
	return parseMode(v, MigrationNo, MigrationYes, MigrationNoTransfer)
}

// parseMode returns v as a T if it is one of valid, else an error that
// lists them.
func parseMode[T ~string](v string, valid ...T) (T, error) {
	names := make([]string, len(valid))
	for i, m := range valid {
		if string(m) == v {
			return m, nil
		}
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown value %q (want %s)", v, strings.Join(names, ", "))
}

// checkMode is parseMode as a Validate check: the error names the field.
func checkMode[T ~string](field string, v T, parse func(string) (T, error)) error {
	if _, err := parse(string(v)); err != nil {
		return fieldErr(field, "%v", err)
	}
	return nil
}

// suspends reports whether a lease of vms VMs may be suspended under m.
func (m Suspension) suspends(vms int) bool {
	return m == SuspensionAll || (m == SuspensionSerial && vms == 1)
}
