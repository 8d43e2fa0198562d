package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/federation"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/simconfig"
	"github.com/bora-sched/bora/workgen"
)

// multiSpec: a tiny gwa-bot (0.01 days, 864 s of arrivals: about 540
// external requests and 180-230 local ones per cluster), 2 points, 2
// policies, 2 seeds.
const multiSpec = `name: multi
model: gwa-bot
params: {days: "0.01"}
vary:
  param: alpha_e
  values: ["1.7", "3.2"]
policies:
  - {name: NOP, set: {preemption.policy: NOP}}
  - {name: MOV, set: {preemption.policy: MOV}}
seeds: 2
first_seed: 1
metrics: [leases, completed, local_rejection_rate, external_completed_percent, preempted_leases, makespan_s, utilisation]
`

func runMulti(t *testing.T, workers int) *Result {
	t.Helper()
	s, err := Parse([]byte(multiSpec), "multi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 8 || !slices.Equal(r.Clusters, []string{"C64", "C128", "C256"}) {
		t.Fatalf("runs %d, clusters %v: want 2 values x 2 seeds x 2 policies = 8 runs over C64, C128, C256", r.Runs, r.Clusters)
	}
	return r
}

// byHand simulates one (alpha_e, seed, policy) the long way: request i
// of the gateway to cluster i mod 3, each cluster on its own hosts with
// its local requests, and returns the three reports.
func byHand(t *testing.T, alpha string, seed uint64, pol preempt.Policy) []*report.Report {
	t.Helper()
	w, err := workgen.Generate("gwa-bot", seed, map[string]string{"days": "0.01", "alpha_e": alpha})
	if err != nil {
		t.Fatal(err)
	}
	var reps []*report.Report
	for c, cl := range w.Clusters {
		reqs := slices.Clone(cl.Requests)
		for i := c; i < len(w.Requests); i += 3 {
			reqs = append(reqs, w.Requests[i])
		}
		sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Arrival < reqs[j].Arrival })
		cfg := config.Default()
		cfg.Cluster.Hosts, cfg.Cluster.CPU, cfg.Cluster.Memory = cl.Hosts, 100, 1024
		cfg.Scheduler.Policy = pol
		sc, err := simconfig.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := sim.Run(sc, reqs)
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// TestMultiClusterAggregates: each cluster's numbers are the simulator's
// on that cluster's stream, and the run's row is worked out from the
// three clusters' leases: counts summed, rates recomputed from the
// summed counts, the makespan the longest, the utilisation the CPU-time
// used over the CPU-time available.
func TestMultiClusterAggregates(t *testing.T) {
	r := runMulti(t, 2)
	var sawReject bool
	for p, alpha := range []string{"1.7", "3.2"} {
		for k, seed := range []uint64{1, 2} {
			for q, pol := range []preempt.Policy{preempt.NOP, preempt.MOV} {
				reps := byHand(t, alpha, seed, pol)
				var leases, done, local, localRej, ext, extDone, preempted int
				var makespan, used, avail float64
				for c, rep := range reps {
					// The cluster's own values are the simulator's.
					vals := metricValues(rep.Metrics)
					for m, name := range r.Spec.Metrics {
						if got := r.ClusterSamples[p][q][m][c][k]; got != vals[name] {
							t.Errorf("alpha_e %s seed %d %s %s: %s %v, simulate %v", alpha, seed, pol, r.Clusters[c], name, got, vals[name])
						}
					}
					for _, l := range rep.Leases {
						leases++
						done += b2i(l.State == "done")
						if l.Origin == "local" {
							local++
							localRej += b2i(l.State == "rejected")
						} else {
							ext++
							extDone += b2i(l.State == "done")
						}
						preempted += b2i(l.Preemptions > 0)
					}
					makespan = max(makespan, rep.Metrics.MakespanS)
					cap := float64(rep.Cluster.Hosts) * rep.Metrics.MakespanS
					used += rep.Metrics.Utilisation / 100 * cap
					avail += cap
				}
				sawReject = sawReject || localRej > 0
				want := []float64{float64(leases), float64(done), 100 * float64(localRej) / float64(local),
					100 * float64(extDone) / float64(ext), float64(preempted), makespan, 100 * used / avail}
				for m, name := range r.Spec.Metrics {
					if got := r.Samples[p][q][m][k]; !within(got, want[m]) {
						t.Errorf("alpha_e %s seed %d %s: %s %v, worked out from the clusters %v", alpha, seed, pol, name, got, want[m])
					}
				}
			}
		}
	}
	if !sawReject {
		t.Error("no local rejection: the test workload has no contention")
	}
}

func within(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestMultiClusterSplit: each cluster simulated, on its own hosts, its
// local requests and the gateway's requests i with i mod 3 its index
// (E1, E4... on C64), nothing else.
func TestMultiClusterSplit(t *testing.T) {
	s, err := Parse([]byte(multiSpec), "multi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workgen.Generate("gwa-bot", 1, map[string]string{"days": "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.simulateClusters(context.Background(), defaultBase, 0, 0, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || len(w.Requests) < 3 {
		t.Fatalf("%d clusters, %d external requests", len(cs), len(w.Requests))
	}
	for c, cl := range w.Clusters {
		var want, got []string
		for _, l := range cl.Requests {
			want = append(want, l.Name)
		}
		for i := c; i < len(w.Requests); i += 3 {
			want = append(want, fmt.Sprintf("E%d", i+1)) // the gateway's requests are E1, E2...
		}
		for _, l := range cs[c].Leases {
			got = append(got, l.Name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s simulated %d leases, want its %d local and %d external", cl.Name, len(got), len(cl.Requests), len(want)-len(cl.Requests))
		}
		if h := cs[c].Cluster.Hosts; h != cl.Hosts {
			t.Errorf("%s simulated on %d hosts, want %d", cl.Name, h, cl.Hosts)
		}
	}
}

// TestMultiClusterDeterministic: the same file gives the same outputs,
// whatever the number of workers.
func TestMultiClusterDeterministic(t *testing.T) {
	var outs [2]bytes.Buffer
	for i, workers := range []int{1, 3} {
		if err := WriteJSON(&outs[i], runMulti(t, workers)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Errorf("JSON differs between 1 and 3 workers:\n%s\n---\n%s", outs[0].String(), outs[1].String())
	}
	if !bytes.Contains(outs[0].Bytes(), []byte(`"C128": [`)) {
		t.Error("no per-cluster samples in the JSON")
	}
	var text bytes.Buffer
	if err := WriteText(&text, runMulti(t, 2)); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(text.String(), "\n"); first != "experiment multi: model gwa-bot, 2 seeds (from 1), 8 runs of 3 clusters (C64, C128, C256) each, aggregated" {
		t.Errorf("first line %q", first)
	}
}

// TestMultiClusterRefusals: what a multi-cluster file cannot ask is
// refused at check time with its line and key.
func TestMultiClusterRefusals(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"param: alpha_e\n  values: [\"1.7\", \"3.2\"]", "param: hosts\n  values: [\"8\", \"16\"]",
			`x.yaml:5: vary.param: model gwa-bot simulates its own clusters (C64 of 64 hosts, C128 of 128 hosts, C256 of 256 hosts)`},
		{"name: multi", "name: multi\nconfig: {cluster.hosts: \"8\"}", "x.yaml:2: config.cluster.hosts: model gwa-bot simulates its own clusters"},
		{"{preemption.policy: MOV}", "{preemption.policy: MOV, cluster.memory: \"2048\"}", "x.yaml:9: policies[1].set.cluster.memory: model gwa-bot"},
	} {
		_, err := Parse([]byte(strings.Replace(multiSpec, c.old, c.new, 1)), "x.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrSpec) {
			t.Errorf("%s: %v\nwant prefix %q", c.new, err, c.want)
		}
	}
}

// TestMetricWithoutRule: a metric with no aggregation rule is refused in
// a multi-cluster file, naming it and its line; a single-cluster model
// needs none.
func TestMetricWithoutRule(t *testing.T) {
	rule := aggregation["preempted_leases"]
	delete(aggregation, "preempted_leases")
	defer func() { aggregation["preempted_leases"] = rule }()
	_, err := Parse([]byte(multiSpec), "x.yaml")
	var se *SpecError
	if !errors.As(err, &se) || se.Line != 12 || se.Path != "metrics[4]" ||
		!strings.Contains(err.Error(), `metric "preempted_leases" has no rule to aggregate it over the clusters of model gwa-bot`) {
		t.Errorf("got %v, want a SpecError at line 12, metrics[4], naming preempted_leases", err)
	}
	if _, err := Parse([]byte(goodSpec), "small.yaml"); err != nil {
		t.Errorf("lublin99 with preempted_leases: %v", err)
	}
}

// TestEveryMetricHasARule: every metric an experiment can ask for has an
// aggregation rule, and every rule names a metric (or one the admission
// branch adds: admission_violation_rate).
func TestEveryMetricHasARule(t *testing.T) {
	known := MetricNames()
	for _, m := range known {
		if _, ok := aggregation[m]; !ok {
			t.Errorf("metric %s has no aggregation rule", m)
		}
	}
	for m := range aggregation {
		if !slices.Contains(known, m) && m != "admission_violation_rate" {
			t.Errorf("aggregation rule for %s, which is no metric", m)
		}
	}
}

// TestOverallMeasuresEveryRule: federation.Overall, which aggregates
// every multi-cluster run, gives a value for each metric with a rule
// when the clusters measured it.
func TestOverallMeasuresEveryRule(t *testing.T) {
	one := 1.0
	m := report.Metrics{EnergyKWh: &one, ViolationRate: &one, AdmissionViolationRate: &one,
		AdmissionRejectionRate: &one, AdmissionThresholdS: &one}
	got := metricValues(federation.Overall([]*report.Report{{Metrics: m}, {Metrics: m}}, 0))
	for name := range aggregation {
		if _, ok := got[name]; !ok {
			t.Errorf("metric %s has a rule but Overall does not give it", name)
		}
	}
}

// TestAggregationDocumented: docs/experiments.md's table gives every
// metric's rule as aggregation has it.
func TestAggregationDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/experiments.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // metric -> its row's rule
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 2 {
			continue
		}
		for _, m := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", ") {
			rows[strings.Trim(m, "`")] = cells[1]
		}
	}
	for m, rule := range aggregation {
		if row, ok := rows[m]; !ok || !strings.Contains(row, rule) {
			t.Errorf("%s: docs say %q, the rule is %q", m, row, rule)
		}
	}
}
