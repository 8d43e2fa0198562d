package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateFederation: --federation with a --gateway sweep. Two
// clusters of one host; four external leases of 100 s at 0, 10, 20,
// 30 s. rr alternates A, B, A, B. earliest-finish: e1 on A (0-100; A
// first by name at equal ends), e2 on B (10-110, A would end it at 200),
// e3 at 20 s ends at 200 on A and 210 on B: A; e4 at 30 s, 210 on B
// against 300 on A: B. Both place two on each; the JSON has one run per
// policy, with the clusters and the gateway.
func TestSimulateFederation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var leases strings.Builder
	leases.WriteString("leases:\n")
	for i, at := range []int{0, 10, 20, 30} {
		leases.WriteString("  - {name: e" + string(rune('1'+i)) + ", arrival: " + itoa(at) + ", duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external, kind: best-effort}\n")
	}
	write("gw.yaml", leases.String())
	fed := write("fed.yaml", "gateway: {policy: pap-rtdp, trace: gw.yaml}\nclusters:\n  - {name: A, hosts: 1, speed: 1}\n  - {name: B, hosts: 1, speed: 1}\n")
	// The clusters need local traces: none are generated.
	if code, _, stderr := runArgs("simulate", "--federation", fed); code != exitUsage || !strings.Contains(stderr, "clusters[0].trace: missing") {
		t.Fatalf("no local trace: exit %d, %s", code, stderr)
	}
	write("none.yaml", "leases: []\n")
	fed = write("fed.yaml", "gateway: {policy: pap-rtdp, trace: gw.yaml}\nclusters:\n  - {name: A, hosts: 1, speed: 1, trace: none.yaml}\n  - {name: B, hosts: 1, speed: 1, trace: none.yaml}\n")
	code, stdout, stderr := runArgs("simulate", "--federation", fed, "--gateway", "rr,earliest-finish", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Runs []struct {
			Name     string
			Gateway  struct{ Policy string }
			Clusters []struct {
				Name   string
				Placed int `json:"external_placed"`
			}
			Leases []struct{ Name, Cluster string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"rr":              {"e1": "A", "e2": "B", "e3": "A", "e4": "B"},
		"earliest-finish": {"e1": "A", "e2": "B", "e3": "A", "e4": "B"},
	}
	if len(out.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(out.Runs))
	}
	for _, r := range out.Runs {
		if r.Gateway.Policy != r.Name || len(r.Clusters) != 2 || r.Clusters[0].Placed != 2 || r.Clusters[1].Placed != 2 {
			t.Errorf("run %s: gateway %s, clusters %+v", r.Name, r.Gateway.Policy, r.Clusters)
		}
		for _, l := range r.Leases {
			if want[r.Name][l.Name] != l.Cluster {
				t.Errorf("run %s: %s on %q, want %q", r.Name, l.Name, l.Cluster, want[r.Name][l.Name])
			}
		}
	}
	if code, stdout, stderr := runArgs("simulate", "--federation", fed, "--gateway", "rr"); code != exitOK || !strings.Contains(stdout, "gateway rr: 4 external leases, 0 rejected at the gateway") ||
		!strings.Contains(stdout, "A      tried 2, placed 2, refused by admission 0, rejected by the scheduler 0") {
		t.Errorf("table: exit %d\n%s%s", code, stdout, stderr)
	}
	// --report: the federation's report and leases (with their cluster),
	// each cluster's run files in a directory of its name; rr's leases
	// e1 and e3 on A's host 0.
	rep := filepath.Join(dir, "rep")
	if code, _, stderr := runArgs("simulate", "--federation", fed, "--gateway", "rr", "--report", rep); code != exitOK {
		t.Fatalf("--report: exit %d, %s", code, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(rep, "leases.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 5 || !strings.HasSuffix(lines[0], ",real_s,cluster") ||
		!strings.HasPrefix(lines[1], "1,e1,") || !strings.HasSuffix(lines[1], ",A") {
		t.Errorf("federation leases.csv:\n%s", csv)
	}
	for _, f := range []string{"report.json", "A/report.json", "A/leases.csv", "A/gantt.svg", "B/utilisation.png"} {
		if _, err := os.Stat(filepath.Join(rep, f)); err != nil {
			t.Errorf("--report: %v", err)
		}
	}
	if a, err := os.ReadFile(filepath.Join(rep, "A", "leases.csv")); err != nil || !strings.Contains(string(a), ",e1,") || !strings.Contains(string(a), ",e3,") || strings.Contains(string(a), ",e2,") {
		t.Errorf("A's leases.csv (%v):\n%s", err, a)
	}
	// PAP: 4 leases over 30 s (0.133/s) of 100 s each on one host of
	// speed 1 (theta 100 s) per cluster: the two can take 0.02/s.
	if code, _, stderr := runArgs("simulate", "--federation", fed); code == exitOK || !strings.Contains(stderr, "gateway pap-rtdp: the policy's inputs (docs/models.md §6): external rate 0.13333333333333333, capacity 0.02") {
		t.Errorf("pap-rtdp overloaded: exit %d, %s", code, stderr)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--federation", fed, "--gateway", "fastest"}, `--gateway: "fastest" (known:`},
		{[]string{"--federation", fed, "--trace", "x.swf"}, "--trace does not go with --federation"},
		{[]string{"--gateway", "rr", "--trace", "x.swf"}, "--gateway needs --federation FILE"},
	} {
		if code, _, stderr := runArgs(append([]string{"simulate"}, bad.args...)...); code != exitUsage || !strings.Contains(stderr, bad.want) {
			t.Errorf("%v: exit %d, %s; want %q", bad.args, code, stderr, bad.want)
		}
	}
}

func runArgs(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	return code, stdout.String(), stderr.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
