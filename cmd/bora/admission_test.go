package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/bora-sched/bora/api"
)

// TestSimulateAdmissionSweep: --admission sweeps like --policy. On one
// host, A (0-100 s), B (10 s) and C (150 s), external, 100 s each:
// accept-all admits all three; one-at-a-time rejects B (A runs) and admits
// C (A has ended): 1 of 3 rejected by admission.
func TestSimulateAdmissionSweep(t *testing.T) {
	trace := t.TempDir() + "/e.yaml"
	data := "leases:\n" +
		"  - {name: A, arrival: 0, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external}\n" +
		"  - {name: B, arrival: 10, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external}\n" +
		"  - {name: C, arrival: 150, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external}\n"
	if err := os.WriteFile(trace, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	var stdout, stderr bytes.Buffer
	args := []string{"simulate", "--trace", trace, "--hosts", "1", "--admission", "accept-all,one-at-a-time", "-o", "json"}
	if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out struct {
		Runs []struct {
			Name    string            `json:"name"`
			Options map[string]string `json:"options"`
			Metrics struct {
				RejectionRate *float64       `json:"admission_rejection_rate"`
				ByReason      map[string]int `json:"external_rejections"`
			} `json:"metrics"`
			Leases []struct {
				Name, State, Reason string
			} `json:"leases"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(out.Runs) != 2 || out.Runs[0].Name != "accept-all" || out.Runs[1].Name != "one-at-a-time" {
		t.Fatalf("runs %+v, want accept-all and one-at-a-time", out.Runs)
	}
	one := out.Runs[1]
	if one.Options["admission.policy"] != "one-at-a-time" || one.Metrics.RejectionRate == nil || math.Abs(*one.Metrics.RejectionRate-100.0/3) > 1e-9 ||
		one.Metrics.ByReason["admission-limit"] != 1 || *out.Runs[0].Metrics.RejectionRate != 0 {
		t.Errorf("options %v; metrics %v %v / %v %v", one.Options, *out.Runs[0].Metrics.RejectionRate, out.Runs[0].Metrics.ByReason, *one.Metrics.RejectionRate, one.Metrics.ByReason)
	}
	if b := one.Leases[1]; b.Name != "B" || b.State != "rejected" || b.Reason != "admission-limit: 1 external lease admitted, limit 1 (one-at-a-time)" {
		t.Errorf("B: %+v", b)
	}
	if c := one.Leases[2]; c.State != "done" {
		t.Errorf("C: %+v, want done", c)
	}

	// Without --admission there is no stage and no admission metric.
	stdout.Reset()
	if code := run(context.Background(), []string{"simulate", "--trace", trace, "--hosts", "1", "-o", "json"}, strings.NewReader(""), &stdout, &stderr, env); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "admission") {
		t.Errorf("a run without admission reports it:\n%s", stdout.String())
	}

	stderr.Reset()
	code := run(context.Background(), []string{"simulate", "--trace", trace, "--admission", "kapac"}, strings.NewReader(""), &stdout, &stderr, env)
	if code != exitUsage || !strings.Contains(stderr.String(), `admission.policy: unknown admission policy "kapac" (want accept-all, one-at-a-time, pacp, rate)`) {
		t.Errorf("unknown policy: exit %d, %q", code, stderr.String())
	}
}

// TestExitCodeAdmission: a lease the admission stage rejected has its own
// exit code; other rejections keep exitRejected.
func TestExitCodeAdmission(t *testing.T) {
	if c := exitCode(rejectedError{api.Lease{ID: 7, Reason: "admission-limit"}}); c != exitAdmission {
		t.Errorf("admission-limit: exit %d, want %d", c, exitAdmission)
	}
	if c := exitCode(rejectedError{api.Lease{ID: 7, Reason: "no-capacity"}}); c != exitRejected {
		t.Errorf("no-capacity: exit %d, want %d", c, exitRejected)
	}
}
