package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestSimulateUnknownPolicy: the message names the key and the valid
// policies, without the package's name or "setting"; exit 2 (usage).
func TestSimulateUnknownPolicy(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"simulate", "--trace", "../../testdata/scenarios/preempt.yaml", "--policy", "FOO"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	want := "bora: preemption.policy: unknown policy \"FOO\" (want NOP, MOV, MLIP or MOML)\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), exitUsage, want)
	}
}

// TestLeaseCreateHelpDefaults: the help gives the class's true default
// per origin (a local lease is non-preemptable, as daemon/convert.go
// makes it) and no admission control, which bora does not have.
func TestLeaseCreateHelpDefaults(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"lease", "create", "--help"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	help := stdout.String()
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"A local lease (the default origin) is always non-preemptable",
		"local leases: non-preemptable (the default and only class); external: cancellable, suspendable (default)"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "admission") {
		t.Errorf("help mentions admission control:\n%s", help)
	}
}

// TestRejectedLeaseShowsNoRemaining: a lease that never ran has no time
// remaining to show (the fake service rejects more than 8 VMs).
func TestRejectedLeaseShowsNoRemaining(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "9", "--duration", "1h").check(t, exitRejected)
	r := d.bora(t, as(aliceToken), "", "lease", "show", "1")
	r.check(t, exitOK, "State:        rejected", "Duration:     1h")
	if strings.Contains(r.stdout, "Remaining") {
		t.Errorf("a rejected lease shows Remaining:\n%s", r.stdout)
	}
}

// TestHelpExitsZero: bora --help prints the commands and exits 0.
func TestHelpExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != exitOK || !strings.Contains(stdout.String(), "simulate") {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
}

// TestSimulateViolationAlpha: --set energy.violation_alpha reaches the
// simulator. One external lease E (600 s) arrives at 100 s on four hosts
// that are off; SESP with waiting factor 2 switches host000 on at the
// tick 1500 s (V = 1400 / 1200 >= 1), so E waits 1520 s. Against its own
// threshold 2 x 600 = 1200 s that is a violation (100 %); against
// violation_alpha 5, 3000 s, none (0 %).
func TestSimulateViolationAlpha(t *testing.T) {
	trace := t.TempDir() + "/e.yaml"
	if err := os.WriteFile(trace, []byte("leases:\n  - {name: E, arrival: 100, duration: 600, vms: 1, cpu: 1, memory: 1024, origin: external}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set       []string
		rate      float64
		threshold float64
	}{{nil, 100, 1200}, {[]string{"--set", "energy.violation_alpha=5"}, 0, 3000}} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"simulate", "--trace", trace, "--hosts", "4", "--energy", "sesp", "--waiting-factor", "2", "-o", "json"}, c.set...)
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.set, code, stderr.String())
		}
		var out struct {
			Metrics struct {
				ViolationRate float64 `json:"violation_rate"`
			} `json:"metrics"`
			Energy struct {
				ThresholdS float64 `json:"wait_threshold_s"`
			} `json:"energy"`
			Leases []struct {
				StartS float64 `json:"start_s"`
			} `json:"leases"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("%v: %v\n%s", c.set, err, stdout.String())
		}
		if out.Metrics.ViolationRate != c.rate || out.Energy.ThresholdS != c.threshold || len(out.Leases) != 1 || out.Leases[0].StartS != 1620 {
			t.Errorf("%v: %+v; want rate %v, threshold %v, E started at 1620 s", c.set, out, c.rate, c.threshold)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"simulate", "--trace", trace, "--energy", "sesp", "--set", "energy.violation_alpha=-1"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != exitUsage || !strings.Contains(stderr.String(), "energy.violation_alpha: must not be negative") {
		t.Errorf("violation_alpha -1: exit %d, %q", code, stderr.String())
	}
}
