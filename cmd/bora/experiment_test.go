package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/experiment"
)

// TestTimingLine: the sweep's runs, time and workers, the CPU time when
// it is known, and its longest run by value, seed and policy.
func TestTimingLine(t *testing.T) {
	r := &experiment.Result{
		Spec: &experiment.Spec{Vary: experiment.Vary{Param: "local_share", Values: []string{"0.2", "0.7"}},
			Policies: []experiment.Policy{{Name: "NOP"}, {Name: "MOV"}}},
		Seeds: []uint64{1, 2}, Runs: 8, Workers: 2, Elapsed: 228740 * time.Millisecond,
		Wall: [][][]time.Duration{
			{{time.Second, 2 * time.Second}, {3 * time.Second, 6420 * time.Millisecond}},
			{{time.Second, time.Second}, {time.Second, 5 * time.Second}},
		},
	}
	cpu := func() (time.Duration, time.Duration, bool) {
		return 438960 * time.Millisecond, 8770 * time.Millisecond, true
	}
	want := "bora experiment: 8 runs in 3m48.7s on 2 workers, 447.7 s of CPU (439.0 user, 8.8 system); " +
		"the longest run: local_share=0.2, seed 2, MOV, 6.4s"
	if got := timingLine(r, cpu); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	none := func() (time.Duration, time.Duration, bool) { return 0, 0, false }
	if got := timingLine(r, none); strings.Contains(got, "CPU") || !strings.HasPrefix(got, "bora experiment: 8 runs in 3m48.7s on 2 workers; the longest") {
		t.Errorf("without the CPU time: %q", got)
	}
}

// TestFormatBar: 12 of 40 runs in 36 s: 30 % of the bar, and 28 runs
// left at 3 s each, 1m24s.
func TestFormatBar(t *testing.T) {
	got := formatBar(12, 40, 36*time.Second)
	want := "[=========>                    ] 12/40 runs · about 1m24s left"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := formatBar(40, 40, time.Minute); got != "[==============================] 40/40 runs" {
		t.Errorf("done: %q", got)
	}
}

// TestProgressOffTerminal: off a terminal, one line a tenth, no escape
// codes: 20 runs give 10 lines.
func TestProgressOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	b := &progressBar{w: &buf, start: now, now: func() time.Time { return now }}
	for i := 1; i <= 20; i++ {
		b.update(i, 20)
	}
	b.clear()
	out := buf.String()
	if n := strings.Count(out, "\n"); n != 10 || strings.Contains(out, "\x1b") || !strings.Contains(out, "bora experiment: [") {
		t.Errorf("%d lines:\n%q", n, out)
	}
}

// tinyGWABot is a multi-cluster experiment small enough for a test: 864 s
// of gwa-bot arrivals, one point, one policy, two seeds.
const tinyGWABot = `model: gwa-bot
params: {days: "0.01"}
vary:
  param: alpha_e
  values: ["1.7"]
policies:
  - {name: MOV, set: {preemption.policy: MOV}}
seeds: 2
metrics: [leases, local_rejection_rate]
`

// TestExperimentMultiCluster: bora experiment runs a multi-cluster model,
// and results.json holds each cluster's values beside their aggregate:
// the lease counts of C64, C128 and C256 add up to the run's.
func TestExperimentMultiCluster(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte(tinyGWABot), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"experiment", file, "-o", filepath.Join(dir, "out"), "--workers", "2"}, nil, &out, &errOut, os.Getenv)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Clusters []string `json:"clusters"`
		Points   []struct {
			Policies map[string]map[string]struct {
				Samples  []float64            `json:"samples"`
				Clusters map[string][]float64 `json:"clusters"`
			} `json:"policies"`
		} `json:"points"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Clusters, ",") != "C64,C128,C256" || len(res.Points) != 1 {
		t.Fatalf("clusters %v, %d points:\n%s", res.Clusters, len(res.Points), data)
	}
	leases := res.Points[0].Policies["MOV"]["leases"]
	for k := range 2 {
		sum := 0.0
		for _, c := range res.Clusters {
			sum += leases.Clusters[c][k]
		}
		if sum == 0 || leases.Samples[k] != sum {
			t.Errorf("seed %d: %v leases, the clusters' %v", k, leases.Samples[k], leases.Clusters)
		}
	}
}

// TestExperimentMultiClusterRefused: a multi-cluster file that sweeps
// hosts is refused before anything runs, exit 2, FILE:LINE.
func TestExperimentMultiClusterRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hosts.yaml")
	text := strings.Replace(tinyGWABot, "param: alpha_e\n  values: [\"1.7\"]", "param: hosts\n  values: [\"8\"]", 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"experiment", file}, nil, &out, &errOut, os.Getenv)
	if want := file + ":4: vary.param: model gwa-bot simulates its own clusters"; code != exitUsage || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q: want exit %d and %q", code, errOut.String(), exitUsage, want)
	}
}
