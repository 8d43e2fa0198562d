package energy

import (
	"fmt"
	"math"
)

// Triangle is a triangular membership function: 0 at and below Left,
// rising linearly to 1 at Centre, falling linearly to 0 at and above
// Right. A shoulder replaces one side by full membership: with
// ShoulderLeft the function is 1 everywhere below Centre, with
// ShoulderRight 1 everywhere above it (docs/models.md §5: the outer sets
// of a variable are shoulders). Left == Centre (or Centre == Right) makes
// that side a vertical edge: membership 1 at Centre, 0 just beside it.
type Triangle struct {
	Left, Centre, Right         float64
	ShoulderLeft, ShoulderRight bool
}

// Membership returns the degree, in [0, 1], to which x belongs to the
// set. A NaN x belongs to no set (0).
func (t Triangle) Membership(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x == t.Centre:
		return 1
	case x < t.Centre:
		if t.ShoulderLeft {
			return 1
		}
		if x <= t.Left {
			return 0
		}
		return (x - t.Left) / (t.Centre - t.Left)
	default:
		if t.ShoulderRight {
			return 1
		}
		if x >= t.Right {
			return 0
		}
		return (t.Right - x) / (t.Right - t.Centre)
	}
}

// Set is a named fuzzy set of a linguistic variable.
type Set struct {
	Name string
	Triangle
}

// Variable is a linguistic variable: its sets, ordered by centre.
type Variable struct {
	Name string
	Sets []Set
}

// Partition builds the usual variable: one triangle per centre whose feet
// are the neighbouring centres (so the memberships add up to 1 between
// the first and the last centre), the first a left shoulder and the last
// a right shoulder. names and centres must have the same length; the
// result is not validated (System.Validate does that).
func Partition(name string, names []string, centres []float64) (Variable, error) {
	if len(names) != len(centres) {
		return Variable{}, fieldErr(ErrInvalidFuzzy, name, "%d set names for %d centres", len(names), len(centres))
	}
	v := Variable{Name: name, Sets: make([]Set, len(names))}
	for i, c := range centres {
		t := Triangle{Left: c, Centre: c, Right: c}
		if i > 0 {
			t.Left = centres[i-1]
		}
		if i < len(centres)-1 {
			t.Right = centres[i+1]
		}
		t.ShoulderLeft = i == 0
		t.ShoulderRight = i == len(centres)-1
		v.Sets[i] = Set{Name: names[i], Triangle: t}
	}
	return v, nil
}

// Firing is one rule that fired in an inference: the sets of V and C it
// joins, the output it names and its strength muV(V)*muC(C) > 0.
type Firing struct {
	V, C     string
	Output   string
	Strength float64
}

// String formats the firing as "MR×L→LC 0.25".
func (f Firing) String() string {
	return fmt.Sprintf("%s×%s→%s %.4g", f.V, f.C, f.Output, f.Strength)
}

// System is the fuzzy controller of PEMP (docs/models.md §5): two
// inputs, the violation risk V and the utilisation C, a rule base mapping
// each pair of their sets to a named output, and the centre of each
// output. Rules[i][j] names the output of V.Sets[i] x C.Sets[j].
//
// A System is read-only once built; Infer may be called concurrently.
type System struct {
	V, C    Variable
	Outputs map[string]float64
	Rules   [][]string
}

// The names of the default sets and outputs (docs/models.md §5).
var (
	defaultVNames  = []string{"LR", "MR", "HR", "VHR"}
	defaultCNames  = []string{"VL", "L", "M", "H", "VH"}
	defaultOutputs = map[string]float64{
		"NP": 0, "QP": 0.25, "HP": 0.5, "3QP": 0.75, "AP": 1,
		"LC": 1.25, "MC": 1.5, "HC": 2,
	}
	defaultRules = [][]string{
		{"HC", "HC", "MC", "LC", "AP"},  // LR
		{"MC", "LC", "LC", "HP", "3QP"}, // MR
		{"HP", "HP", "QP", "QP", "NP"},  // HR
		{"QP", "QP", "NP", "NP", "NP"},  // VHR
	}
)

// DefaultSystem returns the fuzzy system of docs/models.md §5: V sets
// LR 0, MR 1/3, HR 2/3, VHR 1 and C sets VL 0, L 0.25, M 0.5, H 0.75,
// VH 1 (Partition triangles, outer sets shoulders); outputs NP 0, QP 0.25,
// HP 0.5, 3QP 0.75, AP 1, LC 1.25, MC 1.5, HC 2; the 20-rule table
//
//	     VL  L   M   H   VH
//	LR   HC  HC  MC  LC  AP
//	MR   MC  LC  LC  HP  3QP
//	HR   HP  HP  QP  QP  NP
//	VHR  QP  QP  NP  NP  NP
//
// Each call returns a fresh copy.
func DefaultSystem() *System {
	v, _ := Partition("v", defaultVNames, []float64{0, 1.0 / 3, 2.0 / 3, 1})
	c, _ := Partition("c", defaultCNames, []float64{0, 0.25, 0.5, 0.75, 1})
	out := make(map[string]float64, len(defaultOutputs))
	for k, y := range defaultOutputs {
		out[k] = y
	}
	rules := make([][]string, len(defaultRules))
	for i, row := range defaultRules {
		rules[i] = append([]string(nil), row...)
	}
	return &System{V: v, C: c, Outputs: out, Rules: rules}
}

// Infer runs the controller on one input pair: singleton fuzzifier,
// product inference and the weighted average of the output centres,
//
//	f = sum_r y_r * muV_r(V) * muC_r(C) / sum_r muV_r(V) * muC_r(C),
//
// and returns f with the rules that fired (strength > 0), in table order.
// V is taken in [0, +Inf) and C in [0, 1]: values below (and NaN) count
// as 0, C above 1 as 1; V above 1 falls in the right shoulder. For a
// system that passes Validate some rule always fires; for one that does
// not, pairs without a rule are skipped, unknown outputs count as 0, and
// when nothing fires Infer returns 0 and no firings.
func (s *System) Infer(v, c float64) (f float64, fired []Firing) {
	v, c = clampInputs(v, c)
	var num, den float64
	fired = make([]Firing, 0, 4) // two sets of each input overlap at most, by default
	for i, vs := range s.V.Sets {
		mv := vs.Membership(v)
		if mv == 0 {
			continue
		}
		for j, cs := range s.C.Sets {
			mc := cs.Membership(c)
			if mc == 0 || i >= len(s.Rules) || j >= len(s.Rules[i]) {
				continue
			}
			w := mv * mc
			out := s.Rules[i][j]
			num += w * s.Outputs[out]
			den += w
			fired = append(fired, Firing{V: vs.Name, C: cs.Name, Output: out, Strength: w})
		}
	}
	if den == 0 {
		return 0, nil
	}
	return num / den, fired
}

func clampInputs(v, c float64) (float64, float64) {
	if math.IsNaN(v) || v < 0 {
		v = 0
	}
	if math.IsNaN(c) || c < 0 {
		c = 0
	}
	if c > 1 {
		c = 1
	}
	return v, c
}

// Validate checks that the system can be used: each variable has sets
// with unique non-empty names, finite triangles with Left <= Centre <=
// Right, centres strictly increasing, shoulders only on the outer sets,
// and no gap, so that some set of V has positive membership everywhere in
// [0, +Inf) and some set of C everywhere in [0, 1] (hence the denominator
// of Infer is never 0); every output centre is finite and not negative;
// Rules has one row per V set and one entry per C set, each naming an
// output. It returns a *fielderr.Error wrapping ErrInvalidFuzzy, whose field
// is a path of the configuration form (v_sets.MR.left, rules.HR[2]).
func (s *System) Validate() error {
	if s == nil {
		return fieldErr(ErrInvalidFuzzy, "fuzzy", "no system")
	}
	if err := validateVariable(s.V, "v_sets", math.Inf(1)); err != nil {
		return err
	}
	if err := validateVariable(s.C, "c_sets", 1); err != nil {
		return err
	}
	if len(s.Outputs) == 0 {
		return fieldErr(ErrInvalidFuzzy, "outputs", "no outputs")
	}
	for name, y := range s.Outputs {
		switch {
		case name == "":
			return fieldErr(ErrInvalidFuzzy, "outputs", "empty output name")
		case math.IsNaN(y) || math.IsInf(y, 0) || y < 0:
			return fieldErr(ErrInvalidFuzzy, "outputs."+name, "centre must be finite and not negative, got %g", y)
		}
	}
	if len(s.Rules) != len(s.V.Sets) {
		return fieldErr(ErrInvalidFuzzy, "rules", "%d rows for %d V sets", len(s.Rules), len(s.V.Sets))
	}
	for i, row := range s.Rules {
		p := "rules." + s.V.Sets[i].Name
		if len(row) != len(s.C.Sets) {
			return fieldErr(ErrInvalidFuzzy, p, "%d outputs for %d C sets", len(row), len(s.C.Sets))
		}
		for j, out := range row {
			if _, ok := s.Outputs[out]; !ok {
				return fieldErr(ErrInvalidFuzzy, fmt.Sprintf("%s[%d]", p, j), "unknown output %q (C set %s)", out, s.C.Sets[j].Name)
			}
		}
	}
	return nil
}

// validateVariable checks one variable whose domain is [0, hi].
func validateVariable(v Variable, path string, hi float64) error {
	if len(v.Sets) == 0 {
		return fieldErr(ErrInvalidFuzzy, path, "no sets")
	}
	seen := make(map[string]bool, len(v.Sets))
	last := len(v.Sets) - 1
	for i, s := range v.Sets {
		p := path + "." + s.Name
		t := s.Triangle
		switch {
		case s.Name == "":
			return fieldErr(ErrInvalidFuzzy, fmt.Sprintf("%s[%d]", path, i), "empty set name")
		case seen[s.Name]:
			return fieldErr(ErrInvalidFuzzy, p, "duplicate set name")
		case !finite(t.Left) || !finite(t.Centre) || !finite(t.Right):
			return fieldErr(ErrInvalidFuzzy, p, "left, centre and right must be finite")
		case t.Left > t.Centre:
			return fieldErr(ErrInvalidFuzzy, p+".left", "left %g above centre %g", t.Left, t.Centre)
		case t.Right < t.Centre:
			return fieldErr(ErrInvalidFuzzy, p+".right", "right %g below centre %g", t.Right, t.Centre)
		case t.ShoulderLeft && i != 0:
			return fieldErr(ErrInvalidFuzzy, p, "only the first set may be a left shoulder")
		case t.ShoulderRight && i != last:
			return fieldErr(ErrInvalidFuzzy, p, "only the last set may be a right shoulder")
		case i > 0 && t.Centre <= v.Sets[i-1].Centre:
			return fieldErr(ErrInvalidFuzzy, p+".centre", "centre %g not above the previous set's %g", t.Centre, v.Sets[i-1].Centre)
		}
		seen[s.Name] = true
		// No gap between this set's centre and the next one's: the
		// previous set's right foot must lie beyond this one's left foot.
		if i > 0 {
			prev := v.Sets[i-1].Triangle
			if !prev.ShoulderRight && !t.ShoulderLeft && t.Left >= prev.Right {
				return fieldErr(ErrInvalidFuzzy, p+".left", "gap: left %g not below %s's right %g, no set covers %g",
					t.Left, v.Sets[i-1].Name, prev.Right, t.Left)
			}
		}
	}
	first, end := v.Sets[0].Triangle, v.Sets[last].Triangle
	if !first.ShoulderLeft && first.Centre > 0 && first.Left >= 0 {
		return fieldErr(ErrInvalidFuzzy, path+"."+v.Sets[0].Name, "gap: no set covers 0 (make it a left shoulder)")
	}
	if !end.ShoulderRight && end.Centre < hi && end.Right <= hi {
		return fieldErr(ErrInvalidFuzzy, path+"."+v.Sets[last].Name, "gap: no set covers %g (make it a right shoulder)", math.Min(end.Right, hi))
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
