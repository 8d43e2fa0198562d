package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/federation"
)

// writeFiles writes name -> text into a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tracesFederation: two clusters of one host with no local lease and
// four external leases of 100 s at 0, 10, 20 and 30 s (all traces).
var tracesFederation = map[string]string{
	"gw.yaml": `leases:
  - {name: e1, arrival: 0, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external, kind: best-effort}
  - {name: e2, arrival: 10, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external, kind: best-effort}
  - {name: e3, arrival: 20, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external, kind: best-effort}
  - {name: e4, arrival: 30, duration: 100, vms: 1, cpu: 1, memory: 1024, origin: external, kind: best-effort}
`,
	"none.yaml": "leases: []\n",
	"fed.yaml": `gateway: {policy: rr, trace: gw.yaml}
clusters:
  - {name: A, hosts: 1, speed: 1, trace: none.yaml}
  - {name: B, hosts: 1, speed: 1, trace: none.yaml}
`,
}

// TestFederationFileExperiment: an experiment over a federation file of
// traces. rr alternates A, B, A, B: e1 on A 0-100, e2 on B 10-110, e3
// on A 100-200, e4 on B 110-210, so the makespan is 210 s, A's 200 and
// B's 210, at both points of a sweep of a configuration key that cannot
// change it; every seed gives the same numbers (traces, rr draws
// nothing).
func TestFederationFileExperiment(t *testing.T) {
	files := map[string]string{"exp.yaml": `name: fedexp
federation: fed.yaml
vary: {param: scheduler.backfilling, values: [aggressive, conservative]}
policies:
  - {name: RR, gateway: rr}
  - {name: file}
seeds: 2
metrics: [makespan_s, leases, completed]
`}
	for k, v := range tracesFederation {
		files[k] = v
	}
	dir := writeFiles(t, files)
	s, err := Load(filepath.Join(dir, "exp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Clusters, ",") != "A,B" {
		t.Errorf("clusters %v, want A, B", r.Clusters)
	}
	want := []float64{210, 4, 4}
	for p := range s.Vary.Values {
		for q := range s.Policies {
			for m := range s.Metrics {
				for k := range r.Seeds {
					if got := r.Samples[p][q][m][k]; got != want[m] {
						t.Errorf("point %d policy %s %s seed %d: %v, want %v", p, s.Policies[q].Name, s.Metrics[m], r.Seeds[k], got, want[m])
					}
				}
			}
			if a, b := r.ClusterSamples[p][q][0][0][0], r.ClusterSamples[p][q][0][1][0]; a != 200 || b != 210 {
				t.Errorf("point %d policy %s: makespans A %v, B %v; want 200, 210", p, s.Policies[q].Name, a, b)
			}
		}
	}
}

// TestFederationFileSeeds: over a generated federation (das2), each seed
// is the file's run with that seed for the workload and the gateway, and
// the swept parameter and the policy's keys reach every cluster.
func TestFederationFileSeeds(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"fed.yaml": `workload: {model: das2, seed: 99, params: {days: "0.003"}}
gateway: {policy: pap-rnd}
clusters:
  - {name: C64}
  - {name: C128}
  - {name: C256}
`,
		"exp.yaml": `federation: fed.yaml
vary: {param: m_e, values: ["2.5", "3.5"]}
policies:
  - {name: PAP-RND, gateway: pap-rnd, set: {preemption.policy: MOV}}
seeds: 2
first_seed: 7
metrics: [leases, preempted_vms, utilisation]
`})
	s, err := Load(filepath.Join(dir, "exp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := federation.Load(filepath.Join(dir, "fed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for p, v := range s.Vary.Values {
		for k, seed := range r.Seeds {
			mov := func(c *config.Config) error { return c.Set(config.FullKey("preemption.policy"), "MOV") }
			setup, err := f.SetupWith("pap-rnd", federation.Overrides{Seed: seed, Seeded: true, Params: map[string]string{"m_e": v}, Configure: mov})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := federation.Run(context.Background(), setup)
			if err != nil {
				t.Fatal(err)
			}
			got := []float64{r.Samples[p][0][0][k], r.Samples[p][0][1][k], r.Samples[p][0][2][k]}
			want := []float64{float64(rep.Metrics.Leases), float64(rep.Metrics.PreemptedVMs), rep.Metrics.Utilisation}
			if got[0] != want[0] || got[1] != want[1] || !within(got[2], want[2]) {
				t.Errorf("m_e=%s seed %d: %v, the file's run %v", v, seed, got, want)
			}
		}
	}
	if r.Samples[0][0][0][0] == r.Samples[0][0][0][1] {
		t.Errorf("two seeds, the same %v leases: the seed did not reach the workload", r.Samples[0][0][0][0])
	}
}

// TestFederationFileRefusals: a model with a federation file, workload
// parameters for a file of traces, hosts swept, a cluster key set and an
// unknown gateway are refused with their keys.
func TestFederationFileRefusals(t *testing.T) {
	base := "federation: fed.yaml\nvary: {param: scheduler.backfilling, values: [aggressive]}\npolicies:\n  - {name: P, gateway: rr}\nseeds: 2\nmetrics: [leases]\n"
	for _, c := range []struct{ old, new, want string }{
		{"federation: fed.yaml\n", "federation: fed.yaml\nmodel: das2\n", "model: give a model or a federation file, not both"},
		{"federation: fed.yaml\n", "federation: fed.yaml\nparams: {days: \"1\"}\n", `params.days: model federation fed (traces) has no parameter "days"`},
		{"{param: scheduler.backfilling, values: [aggressive]}", "{param: hosts, values: [\"4\"]}", "vary.param: model federation fed (traces) simulates the federation file's clusters (A, B): the cluster cannot be set"},
		{"{name: P, gateway: rr}", "{name: P, gateway: rr, set: {cluster.hosts: \"9\"}}", "policies[0].set.cluster.hosts: model federation fed (traces) simulates"},
		{"gateway: rr}", "gateway: fastest}", "policies[0].gateway:"},
		{"federation: fed.yaml", "federation: nothere.yaml", "federation:"},
	} {
		files := map[string]string{"exp.yaml": strings.Replace(base, c.old, c.new, 1)}
		for k, v := range tracesFederation {
			files[k] = v
		}
		dir := writeFiles(t, files)
		_, err := Load(filepath.Join(dir, "exp.yaml"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrSpec) {
			t.Errorf("%s: %v\nwant %q", c.new, err, c.want)
		}
	}
}
