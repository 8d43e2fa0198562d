package experiment

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bora-sched/bora/workgen"
)

const goodSpec = `name: small
model: lublin99
params: {requests: "60", days: "1", hosts: "8"}
vary:
  param: local_share
  values: ["0.2", "0.5"]
policies:
  - {name: NOP, set: {preemption.policy: NOP}}
  - {name: MOV, set: {preemption.policy: MOV}}
seeds: 2
first_seed: 1
metrics: [local_rejection_rate, preempted_leases]
compare: [MOV, NOP]
`

func TestParseGood(t *testing.T) {
	s, err := Parse([]byte(goodSpec), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "small" || s.Model != "lublin99" || s.Vary.Param != "local_share" || len(s.Policies) != 2 ||
		s.Policies[1].Set["preemption.policy"] != "MOV" || s.Seeds != 2 || s.FirstSeed != 1 {
		t.Errorf("parsed %+v", s)
	}
}

// TestParseErrors: every refusal names the file, the line and the key.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"seeds: 2", "seeds: 1", "x.yaml:10: seeds: 1: want at least 2 seeds"},
		{"seeds: 2", "sedes: 2", "x.yaml:10: sedes: unknown key"},
		{"model: lublin99", "model: lublin", `x.yaml:2: model: "lublin" (models: [das2 gwa-bot local-grid lublin99])`},
		{`requests: "60"`, `requsts: "60"`, `x.yaml:3: params.requsts: model lublin99 has no parameter "requsts"`},
		{"param: local_share", "param: share", `x.yaml:5: vary.param: "share" is neither a parameter of model lublin99`},
		{`values: ["0.2", "0.5"]`, `values: ["0.2", "0.2"]`, `x.yaml:6: vary.values[1]: "0.2" is listed twice`},
		{"{name: MOV, set", "{name: NOP, set", `x.yaml:9: policies[1].name: "NOP" names two policies`},
		{"preempted_leases]", "preempted]", `x.yaml:12: metrics[1]: unknown metric "preempted"`},
		{"preempted_leases]", "local_rejection_rate]", `x.yaml:12: metrics[1]: "local_rejection_rate" is listed twice`},
		{"compare: [MOV, NOP]", "compare: [MOV, MLIP]", `x.yaml:13: compare[1]: no policy is named "MLIP"`},
		{"seeds: 2", "seeds: [2]", "x.yaml:10: seeds:"},
		{"name: small", "name: small\nname: big", "x.yaml:2: name: key written twice (first at line 1)"},
	} {
		text := strings.Replace(goodSpec, c.old, c.new, 1)
		_, err := Parse([]byte(text), "x.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s -> %s: %v\nwant prefix %q", c.old, c.new, err, c.want)
		}
		if err != nil && !errors.Is(err, ErrSpec) {
			t.Errorf("%s: %v does not wrap ErrSpec", c.new, err)
		}
	}
}

// TestShippedExperiments: every experiment file under examples/ parses,
// its model accepts its parameters, and every run's configuration builds.
func TestShippedExperiments(t *testing.T) {
	files, err := filepath.Glob("../examples/experiments/*.yaml")
	if err != nil || len(files) < 7 {
		t.Fatalf("shipped experiment files: %v, %v", files, err)
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := s.CheckConfigs(nil); err != nil {
			t.Errorf("%v", err)
		}
		if base := strings.TrimSuffix(filepath.Base(f), ".yaml"); s.Name != base {
			t.Errorf("%s: name %q, want the file's name", f, s.Name)
		}
		if s.Federation != "" {
			continue // CheckConfigs built every run's setup, workload included
		}
		params, _ := workgen.Params(s.Model)
		p := map[string]string{}
		for k, v := range s.Params {
			p[k] = v
		}
		for _, v := range s.Vary.Values {
			if slices.ContainsFunc(params, func(q workgen.Param) bool { return q.Name == s.Vary.Param }) {
				p[s.Vary.Param] = v
			}
			if s.Model == "local-grid" {
				p["trace"] = "../testdata/traces/sdsc-blue-30days.swf" // the tests run in experiment/
			}
			if _, err := workgen.Generate(s.Model, 1, p); err != nil {
				t.Errorf("%s: %s=%s: %v", f, s.Vary.Param, v, err)
			}
		}
	}
}
