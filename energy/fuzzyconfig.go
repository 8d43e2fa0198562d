package energy

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/yamlstrict"
)

// FuzzyConfig is the configuration form of a System, for YAML:
//
//	v_sets: {LR: 0, MR: 1/3, HR: 2/3, VHR: 1}
//	c_sets:
//	  VL: 0
//	  L: {centre: 0.25, left: 0, right: 0.5}
//	  M: 0.5
//	  H: 0.75
//	  VH: 1
//	outputs: {NP: 0, QP: 0.25, HP: 0.5, 3QP: 0.75, AP: 1, LC: 1.25, MC: 1.5, HC: 2}
//	rules:
//	  LR:  HC HC MC LC AP
//	  MR:  MC LC LC HP 3QP
//	  HR:  HP HP QP QP NP
//	  VHR: QP QP NP NP NP
//
// Sets are ordered by centre. A set given as a number (or a fraction
// "p/q") is a triangle whose feet are the neighbouring centres; a mapping
// may move the feet with left and right. The first and last sets of each
// variable are always shoulders (docs/models.md §5). Each rule row is
// keyed by a V set and lists one output per C set, in C's order, separated
// by spaces or commas. An empty section takes its default: the zero
// FuzzyConfig builds DefaultSystem.
type FuzzyConfig struct {
	VSets   map[string]SetSpec `yaml:"v_sets,omitempty"`
	CSets   map[string]SetSpec `yaml:"c_sets,omitempty"`
	Outputs map[string]float64 `yaml:"outputs,omitempty"`
	Rules   map[string]string  `yaml:"rules,omitempty"`
}

// SetSpec is one set of a FuzzyConfig: its centre and, optionally, its
// feet (nil: the neighbouring centres).
type SetSpec struct {
	Centre      float64
	Left, Right *float64
}

// DefaultFuzzyConfig returns the configuration form of DefaultSystem.
func DefaultFuzzyConfig() FuzzyConfig {
	s := DefaultSystem()
	c := FuzzyConfig{
		VSets:   map[string]SetSpec{},
		CSets:   map[string]SetSpec{},
		Outputs: s.Outputs,
		Rules:   map[string]string{},
	}
	for _, set := range s.V.Sets {
		c.VSets[set.Name] = SetSpec{Centre: set.Centre}
	}
	for _, set := range s.C.Sets {
		c.CSets[set.Name] = SetSpec{Centre: set.Centre}
	}
	for i, row := range s.Rules {
		c.Rules[s.V.Sets[i].Name] = strings.Join(row, " ")
	}
	return c
}

// Build turns the configuration into a System and validates it. Errors
// are *fielderr.Error values wrapping ErrInvalidFuzzy, with the path of the
// offending key (v_sets.MR.right, rules.HR, rules.HR[2], ...).
func (c FuzzyConfig) Build() (*System, error) {
	def := DefaultSystem()
	s := &System{V: def.V, C: def.C, Outputs: def.Outputs, Rules: def.Rules}
	var err error
	if len(c.VSets) > 0 {
		if s.V, err = buildVariable("v", "v_sets", c.VSets); err != nil {
			return nil, err
		}
	}
	if len(c.CSets) > 0 {
		if s.C, err = buildVariable("c", "c_sets", c.CSets); err != nil {
			return nil, err
		}
	}
	if len(c.Outputs) > 0 {
		s.Outputs = make(map[string]float64, len(c.Outputs))
		for k, y := range c.Outputs {
			s.Outputs[k] = y
		}
	}
	if len(c.Rules) > 0 {
		if s.Rules, err = buildRules(c.Rules, s.V); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func buildVariable(name, path string, specs map[string]SetSpec) (Variable, error) {
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := specs[names[i]].Centre, specs[names[j]].Centre
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	centres := make([]float64, len(names))
	for i, n := range names {
		centres[i] = specs[n].Centre
		if i > 0 && centres[i] == centres[i-1] {
			return Variable{}, fieldErr(ErrInvalidFuzzy, path+"."+n+".centre", "same centre %g as %s", centres[i], names[i-1])
		}
	}
	v, err := Partition(name, names, centres)
	if err != nil {
		return Variable{}, err
	}
	for i, n := range names {
		if l := specs[n].Left; l != nil {
			v.Sets[i].Left = *l
		}
		if r := specs[n].Right; r != nil {
			v.Sets[i].Right = *r
		}
	}
	return v, nil
}

func buildRules(rows map[string]string, v Variable) ([][]string, error) {
	known := make(map[string]bool, len(v.Sets))
	for _, s := range v.Sets {
		known[s.Name] = true
	}
	for k := range rows {
		if !known[k] {
			return nil, fieldErr(ErrInvalidFuzzy, "rules."+k, "no V set named %q", k)
		}
	}
	rules := make([][]string, len(v.Sets))
	for i, s := range v.Sets {
		row, ok := rows[s.Name]
		if !ok {
			return nil, fieldErr(ErrInvalidFuzzy, "rules."+s.Name, "missing row")
		}
		rules[i] = strings.FieldsFunc(row, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	}
	return rules, nil
}

// UnmarshalYAML reads a FuzzyConfig, rejecting unknown keys. Its errors
// are *yamlstrict.Error values naming the line and the key path
// ("c_sets.VL.width").
func (c *FuzzyConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain FuzzyConfig
	if err := yamlstrict.Check(n, reflect.TypeOf(plain{}), ""); err != nil {
		return err
	}
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*c = FuzzyConfig(p)
	return nil
}

// UnmarshalYAML reads a set: a number, a fraction "p/q", or a mapping
// with centre (required), left and right. Its errors are
// *yamlstrict.Error values with paths relative to the set.
func (s *SetSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		x, err := parseNumber(n.Value)
		if err != nil {
			return &yamlstrict.Error{Line: n.Line, Err: err}
		}
		*s = SetSpec{Centre: x}
		return nil
	}
	if err := yamlstrict.Keys(n, "centre", "left", "right"); err != nil {
		return err
	}
	var out SetSpec
	hasCentre := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return &yamlstrict.Error{Line: v.Line, Path: k.Value, Err: errors.New("want a number")}
		}
		x, err := parseNumber(v.Value)
		if err != nil {
			return &yamlstrict.Error{Line: v.Line, Path: k.Value, Err: err}
		}
		switch k.Value {
		case "centre":
			out.Centre, hasCentre = x, true
		case "left":
			out.Left = &x
		case "right":
			out.Right = &x
		}
	}
	if !hasCentre {
		return &yamlstrict.Error{Line: n.Line, Path: "centre", Err: errors.New("required")}
	}
	*s = out
	return nil
}

// MarshalYAML writes a set as its centre when its feet are the defaults,
// else as a mapping.
func (s SetSpec) MarshalYAML() (any, error) {
	if s.Left == nil && s.Right == nil {
		return s.Centre, nil
	}
	m := map[string]float64{"centre": s.Centre}
	if s.Left != nil {
		m["left"] = *s.Left
	}
	if s.Right != nil {
		m["right"] = *s.Right
	}
	return m, nil
}

// parseNumber reads a finite decimal number or a fraction "p/q".
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p, q, ok := strings.Cut(s, "/")
		if !ok {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		a, err1 := strconv.ParseFloat(strings.TrimSpace(p), 64)
		b, err2 := strconv.ParseFloat(strings.TrimSpace(q), 64)
		if err1 != nil || err2 != nil || b == 0 {
			return 0, fmt.Errorf("%q is not a number or a fraction", s)
		}
		x = a / b
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not finite", s)
	}
	return x, nil
}
