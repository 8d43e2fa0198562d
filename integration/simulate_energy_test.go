package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateEnergySweep runs the four energy policies side by side on a
// small trace, with the waiting factor set, and writes the report
// directory with the power plots.
func TestSimulateEnergySweep(t *testing.T) {
	dir := t.TempDir()
	args := []string{"simulate", "--trace", repo("testdata", "scenarios", "preempt.yaml"), "--hosts", "4",
		"--energy", "always-on,gesp,sesp,pemp", "--waiting-factor", "3"}
	out, stderr, code := run(t, append(args, "--report", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if h := strings.Join(strings.Fields(lines[0]), " "); h != "metric always-on gesp sesp pemp" {
		t.Errorf("table header = %q, want the four energy policies side by side", h)
	}
	if !strings.Contains(out, "energy (kWh)") || !strings.Contains(out, "violation rate (%)") {
		t.Errorf("table lacks the energy rows:\n%s", out)
	}
	for _, run := range []string{"always-on", "gesp", "sesp", "pemp"} {
		for _, f := range []string{"power.svg", "power.png"} {
			if _, err := os.Stat(filepath.Join(dir, run, f)); err != nil {
				t.Errorf("report file: %v", err)
			}
		}
	}
	out, stderr, code = run(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sweep struct {
		Runs []struct {
			Name    string            `json:"name"`
			Options map[string]string `json:"options"`
			Metrics struct {
				EnergyKWh     *float64 `json:"energy_kwh"`
				ViolationRate *float64 `json:"violation_rate"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sweep); err != nil {
		t.Fatal(err)
	}
	// always-on: 4 hosts x 117 W over the makespan (10 h + the suspended
	// lease's delay) is more than 4.68 kWh; every managed run uses less.
	on := *sweep.Runs[0].Metrics.EnergyKWh
	for _, r := range sweep.Runs {
		if r.Metrics.EnergyKWh == nil || r.Metrics.ViolationRate == nil || r.Options["energy.waiting_factor"] != "3" {
			t.Fatalf("%s: %+v", r.Name, r)
		}
		if r.Name != "always-on" && *r.Metrics.EnergyKWh > on {
			t.Errorf("%s used %.3f kWh, more than always-on's %.3f", r.Name, *r.Metrics.EnergyKWh, on)
		}
	}
	if on < 4.68 {
		t.Errorf("always-on: %.3f kWh", on)
	}
	_, stderr, code = run(t, "simulate", "--trace", repo("testdata", "scenarios", "preempt.yaml"), "--energy", "greedy")
	if code != 2 || !strings.Contains(stderr, "greedy") {
		t.Errorf("unknown energy policy: exit %d, %s", code, stderr)
	}
}
