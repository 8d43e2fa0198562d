package integration

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const experimentFile = `name: two-by-two
model: lublin99
params: {requests: "60", days: "1", hosts: "8"}
vary:
  param: local_share
  values: ["0.3", "0.6"]
policies:
  - {name: NOP, set: {preemption.policy: NOP}}
  - {name: MOV, set: {preemption.policy: MOV}}
seeds: 2
first_seed: 1
metrics: [local_rejection_rate, utilisation]
compare: [MOV, NOP]
`

// TestExperimentEndToEnd runs a 2-value, 2-seed experiment through the
// real CLI and checks the files, and the interval arithmetic by hand: with
// two samples x1, x2 the standard deviation is |x1 - x2|/√2, so the
// half-width is t(0.975, 1)·|x1 - x2|/2 = 12.7062·|x1 - x2|/2.
func TestExperimentEndToEnd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(file, []byte(experimentFile), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := run(t, "experiment", file, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "bora experiment: 8 runs in ") || !strings.Contains(stderr, "the longest run: local_share=") {
		t.Errorf("no line with what the sweep cost on stderr:\n%s", stderr)
	}
	for _, name := range []string{"results.txt", "results.csv", "results.json", "timings.csv", "local_rejection_rate.svg",
		"local_rejection_rate.png", "utilisation.svg", "utilisation.png"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	txt, _ := os.ReadFile(filepath.Join(out, "results.txt"))
	if string(txt) != stdout || !strings.Contains(stdout, "local_share=0.6") || !strings.Contains(stdout, "MOV - NOP") {
		t.Errorf("the table on stdout and in results.txt:\n%s\n---\n%s", stdout, txt)
	}
	var res struct {
		Seeds  []uint64 `json:"seeds"`
		Points []struct {
			Value    string `json:"value"`
			Policies map[string]map[string]struct {
				Summary struct {
					N    int     `json:"n"`
					Mean float64 `json:"mean"`
					CI   float64 `json:"ci95"`
				} `json:"summary"`
				Samples []float64 `json:"samples"`
			} `json:"policies"`
			Paired map[string]struct {
				Mean float64 `json:"mean"`
				CI   float64 `json:"ci95"`
			} `json:"paired"`
		} `json:"points"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 || len(res.Seeds) != 2 || res.Seeds[0] != 1 || res.Seeds[1] != 2 {
		t.Fatalf("points %d, seeds %v", len(res.Points), res.Seeds)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, p := range res.Points {
		for _, metric := range []string{"local_rejection_rate", "utilisation"} {
			var x [2][2]float64 // policy (NOP, MOV), seed
			for i, pol := range []string{"NOP", "MOV"} {
				m := p.Policies[pol][metric]
				if len(m.Samples) != 2 || m.Summary.N != 2 {
					t.Fatalf("%s %s %s: %+v", p.Value, pol, metric, m)
				}
				x[i] = [2]float64{m.Samples[0], m.Samples[1]}
				mean, ci := (x[i][0]+x[i][1])/2, 12.706204736174696*math.Abs(x[i][0]-x[i][1])/2
				if !close(m.Summary.Mean, mean) || !close(m.Summary.CI, ci) {
					t.Errorf("%s %s %s: mean ± ci %v ± %v, by hand %v ± %v", p.Value, pol, metric, m.Summary.Mean, m.Summary.CI, mean, ci)
				}
			}
			d0, d1 := x[1][0]-x[0][0], x[1][1]-x[0][1]
			pd := p.Paired[metric]
			if !close(pd.Mean, (d0+d1)/2) || !close(pd.CI, 12.706204736174696*math.Abs(d0-d1)/2) {
				t.Errorf("%s %s paired: %v ± %v, by hand %v ± %v", p.Value, metric, pd.Mean, pd.CI, (d0+d1)/2, 12.706204736174696*math.Abs(d0-d1)/2)
			}
		}
	}
	// The same file gives the same numbers.
	out2 := filepath.Join(dir, "again")
	if _, stderr, code := run(t, "experiment", file, "-o", out2, "--workers", "1"); code != 0 {
		t.Fatalf("again: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"results.json", "results.csv", "results.txt"} {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(out2, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same file", name)
		}
	}
}

// TestExperimentBadFile: a bad experiment file or parameter exits 2 with
// the file, line and key.
func TestExperimentBadFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ old, new, want string }{
		{"seeds: 2", "seed: 2", "bad.yaml:10: seed: unknown key"},
		{`requests: "60"`, `requests: "sixty"`, "bad.yaml:3: params"},
		{"local_share", "local_shares", `bad.yaml:5: vary.param: "local_shares" is neither`},
	} {
		file := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(file, []byte(strings.Replace(experimentFile, c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, "experiment", file, "-o", filepath.Join(dir, "out"))
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.new, code, stderr, c.want)
		}
	}
}
