package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bora builds the real CLI once per test binary.
func bora(t *testing.T) string { return binary(t, "bora") }

func repo(parts ...string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(file), ".."}, parts...)...)
}

// run runs bora and returns stdout, stderr and the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bora(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

type jsonReport struct {
	Hosts   int `json:"hosts"`
	Metrics struct {
		Leases                int     `json:"leases"`
		Completed             int     `json:"completed"`
		LocalRejectionRate    float64 `json:"local_rejection_rate"`
		ExternalRejectionRate float64 `json:"external_rejection_rate"`
		Utilisation           float64 `json:"utilisation"`
		PreemptedLeases       int     `json:"preempted_leases"`
		MakespanS             float64 `json:"makespan_s"`
	} `json:"metrics"`
	Leases []struct {
		ID     uint64   `json:"id"`
		State  string   `json:"state"`
		Origin string   `json:"origin"`
		StartS *float64 `json:"start_s"`
		EndS   *float64 `json:"end_s"`
		Hosts  []int    `json:"hosts"`
	} `json:"leases"`
}

// TestSimulateShippedTrace runs the README's main command (the 30-day SDSC
// trace with a local workload injected, 512 hosts, invariant checker on).
func TestSimulateShippedTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole 30-day trace: not in -short")
	}
	out, stderr, code := run(t, "simulate",
		"--trace", repo("testdata", "traces", "sdsc-blue-30days.swf"),
		"--inject", repo("testdata", "traces", "local-work_15-dur_3h-size_2medium.lwf"),
		"--hosts", "512", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	// 5108 SDSC jobs (437 of the 5545 skipped: cancelled before start) +
	// 141 local leases.
	if r.Metrics.Leases != 5249 || len(r.Leases) != 5249 {
		t.Fatalf("leases = %d (%d listed), want 5249", r.Metrics.Leases, len(r.Leases))
	}
	if r.Metrics.Completed != 5249 {
		t.Errorf("completed = %d, want all 5249", r.Metrics.Completed)
	}
	if r.Metrics.Utilisation <= 0 || r.Metrics.Utilisation > 100 {
		t.Errorf("utilisation = %g, want in (0, 100]", r.Metrics.Utilisation)
	}
	for _, l := range r.Leases {
		if l.State != "done" || l.StartS == nil || l.EndS == nil || *l.EndS < *l.StartS || len(l.Hosts) == 0 {
			t.Fatalf("lease %d: state %s start %v end %v hosts %v", l.ID, l.State, l.StartS, l.EndS, l.Hosts)
		}
	}
}

// TestSimulateSweepAndReport runs a policy sweep over a small trace and
// writes the report directory.
func TestSimulateSweepAndReport(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := run(t, "simulate",
		"--trace", repo("testdata", "scenarios", "preempt.yaml"),
		"--hosts", "4", "--policy", "MOV,MLIP,MOML", "--report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	if strings.Join(header, " ") != "metric MOV MLIP MOML" {
		t.Errorf("table header = %q, want the three policies side by side", header)
	}
	for _, run := range []string{"MOV", "MLIP", "MOML"} {
		for _, f := range []string{"report.json", "leases.csv", "gantt.svg", "gantt.png", "utilisation.svg", "utilisation.png"} {
			if _, err := os.Stat(filepath.Join(dir, run, f)); err != nil {
				t.Errorf("report file: %v", err)
			}
		}
		fh, err := os.Open(filepath.Join(dir, run, "gantt.png"))
		if err != nil {
			continue
		}
		if _, err := png.Decode(fh); err != nil {
			t.Errorf("%s/gantt.png: %v", run, err)
		}
		fh.Close()
	}
}

// TestSimulateBadInput: bad flags and bad traces exit 2 with a message
// naming the problem, and never panic.
func TestSimulateBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.swf")
	if err := os.WriteFile(bad, []byte("; header\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 x 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"no trace", []string{"simulate"}, []string{"--trace is required"}},
		{"malformed swf line", []string{"simulate", "--trace", bad}, []string{"bad.swf:3", "field 4"}},
		{"missing file", []string{"simulate", "--trace", "/nonexistent.swf"}, []string{"/nonexistent.swf"}},
		{"unknown policy", []string{"simulate", "--trace", bad, "--policy", "FOO"}, []string{"FOO"}},
		{"unknown set key", []string{"simulate", "--trace", bad, "--set", "scheduler.nope=1"}, []string{"scheduler.nope", "unknown"}},
		{"bad backfilling", []string{"simulate", "--trace", bad, "--backfilling", "sideways"}, []string{"backfilling", "sideways"}},
		{"bad output", []string{"simulate", "--trace", bad, "-o", "xml"}, []string{"xml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, c.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if strings.Contains(stderr, "panic") {
				t.Fatalf("panicked: %s", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not name %q", stderr, w)
				}
			}
		})
	}
}
