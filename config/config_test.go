package config

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestSampleConfigIsTheDefault(t *testing.T) {
	c, err := Load("../docs/sample-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if c.Scheduler.Backfilling != d.Scheduler.Backfilling || c.Scheduler.Policy != d.Scheduler.Policy ||
		c.Scheduler.Migration != "yes" || c.Cluster != d.Cluster || c.Scheduler.Overheads.Delta != 2300*time.Millisecond ||
		c.Workload.CPUPerVM != 100 || c.Scheduler.Overheads.SuspendRate != 6.36 {
		t.Errorf("sample config differs from the defaults: %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // all must appear in the message
		unknown    bool
	}{
		{"unknown top key", "schedulr:\n  backfilling: none\n", []string{"t.yaml:1", "schedulr: unknown key (known here: admission, api, cluster, daemon"}, true},
		{"unknown scheduler key", "scheduler:\n  mapper: pack\n  backfiling: none\n", []string{"t.yaml:3", "scheduler.backfiling"}, true},
		{"not a number", "scheduler:\n  overheads:\n    suspend_rate: fast\n", []string{"t.yaml:3", "scheduler.overheads.suspend_rate", `"fast" is not a number`}, false},
		{"bad duration", "scheduler:\n  overheads:\n    delta: soon\n", []string{"t.yaml:3", "scheduler.overheads.delta"}, false},
		{"bad enum", "scheduler:\n  backfilling: sideways\n", []string{"backfilling", "sideways"}, false},
		{"bad policy", "scheduler:\n  preemption:\n    policy: FASTEST\n", []string{"t.yaml:3", "FASTEST"}, false},
		{"zero hosts", "cluster:\n  hosts: 0\n", []string{"cluster.hosts"}, false},
		{"list where a value goes", "scheduler:\n  mapper: [pack]\n", []string{"t.yaml:2", "scheduler.mapper", "single value"}, false},
		{"not yaml", "scheduler: [\n", []string{"t.yaml"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantParseError(t, c.yaml, c.want, c.unknown) })
	}
}

func TestSetOverrides(t *testing.T) {
	c := Default()
	for _, kv := range [][2]string{{"scheduler.suspension", "serial"}, {"cluster.cpu", "0.5"}, {"cluster.hosts", "512"}, {"scheduler.overheads.pause", "10ms"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	// 0.5 cores = 50 hundredths.
	if c.Scheduler.Suspension != "serial" || c.Cluster.CPU != 50 || c.Cluster.Hosts != 512 || c.Scheduler.Overheads.Pause != 10*time.Millisecond {
		t.Errorf("overrides not applied: %+v", c)
	}
}

func FuzzParse(f *testing.F) {
	sample, _ := os.ReadFile("../docs/sample-config.yaml")
	f.Add(sample)
	f.Add([]byte("scheduler:\n  backfilling: none\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yaml")
		if err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("parsed config does not validate: %v", verr)
			}
			_ = c.ValidateDaemon() // borad's checks: an error, never a panic
		}
	})
}

// wantParseError parses yaml and expects an error containing every string
// of want, wrapping ErrUnknownKey exactly when unknown.
func wantParseError(t *testing.T, yaml string, want []string, unknown bool) {
	t.Helper()
	_, err := Parse([]byte(yaml), "t.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if errors.Is(err, ErrUnknownKey) != unknown {
		t.Errorf("errors.Is(err, ErrUnknownKey) = %v, want %v", !unknown, unknown)
	}
}
