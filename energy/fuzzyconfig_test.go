package energy

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/yamlstrict"
)

func TestFuzzyConfigDefaults(t *testing.T) {
	for name, c := range map[string]FuzzyConfig{
		"zero":    {},
		"default": DefaultFuzzyConfig(),
	} {
		s, err := c.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(s, DefaultSystem()) {
			t.Errorf("%s: Build = %+v, want DefaultSystem", name, s)
		}
	}
}

const exampleYAML = `
v_sets: {LR: 0, MR: 1/3, HR: 2/3, VHR: 1}
c_sets:
  VL: 0
  L: {centre: 0.25, left: 0, right: 0.5}
  M: 0.5
  H: 0.75
  VH: 1
outputs: {NP: 0, QP: 0.25, HP: 0.5, 3QP: 0.75, AP: 1, LC: 1.25, MC: 1.5, HC: 2}
rules:
  LR:  HC HC MC LC AP
  MR:  MC, LC, LC, HP, 3QP
  HR:  HP HP QP QP NP
  VHR: QP QP NP NP NP
`

func TestFuzzyConfigYAML(t *testing.T) {
	var c FuzzyConfig
	if err := yaml.Unmarshal([]byte(exampleYAML), &c); err != nil {
		t.Fatal(err)
	}
	s, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	// 1/3 parses to the same float as the default's 1.0/3, and L's
	// explicit feet are the defaults: the very same system.
	if !reflect.DeepEqual(s, DefaultSystem()) {
		t.Errorf("example YAML builds %+v, want DefaultSystem", s)
	}
	out, err := yaml.Marshal(DefaultFuzzyConfig())
	if err != nil {
		t.Fatal(err)
	}
	var back FuzzyConfig
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s2, err := back.Build(); err != nil || !reflect.DeepEqual(s2, DefaultSystem()) {
		t.Errorf("round trip: %v\n%s", err, out)
	}
}

// TestFuzzyConfigCustom changes the feet and an output and checks Infer
// by hand.
func TestFuzzyConfigCustom(t *testing.T) {
	const doc = `
c_sets: {VL: 0, L: {centre: 0.25, right: 0.75}, M: 0.5, H: 0.75, VH: 1}
outputs: {NP: 0, QP: 0.25, HP: 0.5, 3QP: 0.75, AP: 1, LC: 1.25, MC: 1.5, HC: 2.5}
`
	var c FuzzyConfig
	if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
		t.Fatal(err)
	}
	s, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	// V = 0: LR only. C = .5: L = (.75-.5)/(.75-.25) = .5 (its right foot
	// moved to .75), M = 1. LR×L = HC (now 2.5) weight .5, LR×M = MC 1.5
	// weight 1: f = (.5*2.5 + 1*1.5)/1.5 = 2.75/1.5 = 1.8333...
	f, fired := s.Infer(0, 0.5)
	if want := 2.75 / 1.5; math.Abs(f-want) > eps || len(fired) != 2 {
		t.Errorf("f = %g (%v), want %g from 2 rules", f, fired, want)
	}
}

func TestFuzzyConfigErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		field     string // fielderr.Error path of Build, or yamlstrict.Error path of a YAML error
		yamlErr   string // part of the YAML error; "" when Build refuses
	}{
		{"unknown key", "v_set: {A: 0}", "v_set", "unknown key (known here: c_sets, outputs, rules, v_sets)"},
		{"unknown set key", "c_sets: {VL: {centre: 0, width: 1}}", "c_sets.VL.width", "unknown key (known here: centre, left, right)"},
		{"no centre", "c_sets: {VL: {left: 0}}", "c_sets.VL.centre", "required"},
		{"bad number", "v_sets: {LR: abc}", "v_sets.LR", `"abc" is not a number`},
		{"zero denominator", "v_sets: {LR: 1/0}", "v_sets.LR", "not a number or a fraction"},
		{"output not a number", "outputs: {NP: none}", "outputs.NP", `"none" is not a number`},
		{"same centre", "v_sets: {LR: 0, MR: 0, HR: 0.5, VHR: 1}", "v_sets.MR.centre", ""},
		{"rule for unknown set", "rules: {LR: HC HC MC LC AP, MR: MC LC LC HP 3QP, HR: HP HP QP QP NP, VHR: QP QP NP NP NP, XR: NP NP NP NP NP}", "rules.XR", ""},
		{"missing row", "rules: {LR: HC HC MC LC AP, MR: MC LC LC HP 3QP, HR: HP HP QP QP NP}", "rules.VHR", ""},
		{"unknown output", "rules: {LR: HC HC MC LC AP, MR: MC LC LC HP 3QP, HR: HP HP QP QP NP, VHR: QP QP NP NP ZZ}", "rules.VHR[4]", ""},
		{"row too short", "rules: {LR: HC HC MC LC, MR: MC LC LC HP 3QP, HR: HP HP QP QP NP, VHR: QP QP NP NP NP}", "rules.LR", ""},
		// Three V sets with the default 4-row table.
		{"default rules misfit", "v_sets: {LR: 0, MR: 0.5, HR: 1}", "rules", ""},
		{"gap from feet", "c_sets: {VL: 0, L: {centre: 0.25, right: 0.3}, M: {centre: 0.5, left: 0.4}, H: 0.75, VH: 1}", "c_sets.M.left", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fc FuzzyConfig
			err := yaml.Unmarshal([]byte(c.doc), &fc)
			if c.yamlErr != "" {
				var se *yamlstrict.Error
				if !errors.As(err, &se) || se.Path != c.field || !strings.Contains(se.Err.Error(), c.yamlErr) {
					t.Fatalf("Unmarshal = %v, want a *yamlstrict.Error at %s containing %q", err, c.field, c.yamlErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = fc.Build()
			var fe *fielderr.Error
			if !errors.Is(err, ErrInvalidFuzzy) || !errors.As(err, &fe) || fe.Path != c.field {
				t.Errorf("Build = %v, want a *fielderr.Error on %s wrapping ErrInvalidFuzzy", err, c.field)
			}
		})
	}
}
