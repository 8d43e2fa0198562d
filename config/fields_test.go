package config

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// TestSetAndFileAgree: a key set with --set and the same key written in
// the file go through one decoder, so they reach every section and say
// the same thing of a bad value.
func TestSetAndFileAgree(t *testing.T) {
	cases := []struct {
		key, value string
		msg        string // "" when the value is good
	}{
		{"scheduler.overheads.delta", "soon", `"soon" is not a duration (e.g. 90s, 1h30m, or seconds)`},
		{"scheduler.preemption.policy", "FOO", `unknown policy "FOO" (want NOP, MOV, MLIP or MOML)`},
		// The typed modes decode with scheduler.Parse*: main's messages.
		{"scheduler.backfilling", "sideways", `unknown value "sideways" (want conservative, aggressive, none)`},
		{"scheduler.suspension", "sometimes", `unknown value "sometimes" (want none, serial, all)`},
		{"scheduler.suspendresume_exclusion", "Global", `unknown value "Global" (want local, global)`},
		{"scheduler.migration", "maybe", `unknown value "maybe" (want no, yes, yes-notransfer)`},
		{"scheduler.migration", "yes-notransfer", ""},
		{"cluster.cpu", "-1", `"-1" is not a positive number of cores`},
		{"energy.consolidate", "maybe", `"maybe" is not true or false`},
		// The daemon's sections were decoded apart and could not be set.
		{"daemon.speed", "fast", `"fast" is not a number`},
		{"api.max_body", "big", `"big" is not a whole number`},
		{"daemon.store", "/tmp/x.db", ""},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			c := Default()
			setErr := c.Set(tc.key, tc.value)
			// The key as a file: "a.b.c: v" written as nested mappings.
			parts := strings.Split(tc.key, ".")
			var doc strings.Builder
			for i, p := range parts[:len(parts)-1] {
				doc.WriteString(strings.Repeat("  ", i) + p + ":\n")
			}
			doc.WriteString(strings.Repeat("  ", len(parts)-1) + parts[len(parts)-1] + ": " + tc.value + "\n")
			_, fileErr := Parse([]byte(doc.String()), "t.yaml")
			if tc.msg == "" {
				if setErr != nil || fileErr != nil {
					t.Fatalf("Set: %v; file: %v", setErr, fileErr)
				}
				return
			}
			if want := tc.key + ": " + tc.msg; setErr == nil || setErr.Error() != want {
				t.Errorf("Set = %v, want %q", setErr, want)
			}
			if want := "t.yaml:" + strconv.Itoa(len(parts)) + ": " + tc.key + ": " + tc.msg; fileErr == nil || fileErr.Error() != want {
				t.Errorf("file = %v, want %q", fileErr, want)
			}
		})
	}
}

// TestSetValues: the values Set writes, by unit: seconds for a
// duration, hundredths for cores, a lowercased energy policy; the same
// key twice keeps the last.
func TestSetValues(t *testing.T) {
	c := Default()
	for _, kv := range [][2]string{{"scheduler.wakeup_interval", "90"}, {"workload.cpu_per_vm", "0.25"},
		{"energy.policy", "PEMP"}, {"daemon.op_timeout", "2m"}, {"scheduler.max_reservations", "3"}, {"scheduler.max_reservations", "4"},
		{"scheduler.backfilling", "aggressive"}, {"scheduler.suspension", "serial"}, {"scheduler.suspendresume_exclusion", "global"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	// 90 seconds; 0.25 cores = 25 hundredths.
	if c.Scheduler.WakeUp != 90*time.Second || c.Workload.CPUPerVM != 25 || c.Energy.Policy != "pemp" ||
		c.Daemon.OpTimeout != 2*time.Minute || c.Scheduler.MaxReservations != 4 ||
		c.Scheduler.Backfilling != scheduler.BackfillAggressive || c.Scheduler.Suspension != scheduler.SuspensionSerial ||
		c.Scheduler.Exclusion != scheduler.ExclusionGlobal {
		t.Errorf("Set wrote %+v", c)
	}
	for _, key := range []string{"hosts", "energy.fuzzy", "scheduler.overheads", "scheduler.nope", "nope"} {
		if err := c.Set(key, "1"); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Set(%s) = %v, want ErrUnknownKey", key, err)
		}
	}
}
