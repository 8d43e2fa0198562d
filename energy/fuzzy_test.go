package energy

import (
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/bora-sched/bora/fielderr"
)

const eps = 1e-12

func TestTriangleMembership(t *testing.T) {
	tri := Triangle{Left: 0, Centre: 0.25, Right: 0.5}
	left := Triangle{Left: 0, Centre: 0, Right: 1.0 / 3, ShoulderLeft: true}
	right := Triangle{Left: 2.0 / 3, Centre: 1, Right: 1, ShoulderRight: true}
	cases := []struct {
		name string
		t    Triangle
		x    float64
		want float64
	}{
		{"centre", tri, 0.25, 1},
		{"rising half", tri, 0.125, 0.5},     // (0.125-0)/(0.25-0)
		{"falling", tri, 0.4, 0.4},           // (0.5-0.4)/(0.5-0.25)
		{"left foot", tri, 0, 0},             // feet are outside
		{"right foot", tri, 0.5, 0},          //
		{"outside", tri, 2, 0},               //
		{"left shoulder below", left, -3, 1}, // full membership below the centre
		{"left shoulder side", left, 1.0 / 6, 0.5},
		{"right shoulder above", right, 7, 1},      // V > 1 is fully VHR
		{"right shoulder side", right, 0.75, 0.25}, // (0.75-2/3)/(1/3)
		{"NaN", tri, math.NaN(), 0},
		{"vertical left edge", Triangle{Left: 1, Centre: 1, Right: 2}, 0.999, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.t.Membership(c.x); math.Abs(got-c.want) > eps {
				t.Errorf("Membership(%g) = %g, want %g", c.x, got, c.want)
			}
		})
	}
}

// TestInferDefault works the default system by hand at several points.
// V sets: LR 0, MR 1/3, HR 2/3, VHR 1; C sets: VL 0, L .25, M .5, H .75,
// VH 1; outputs NP 0, QP .25, HP .5, 3QP .75, AP 1, LC 1.25, MC 1.5, HC 2.
func TestInferDefault(t *testing.T) {
	cases := []struct {
		name  string
		v, c  float64
		want  float64
		rules int // how many rules fire
	}{
		// Only LR (1) x VL (1) fires: f = HC = 2.
		{"origin", 0, 0, 2, 1},
		// V=1/6: LR = 1-(1/6)/(1/3) = .5, MR = .5; C=.125: VL = .5, L = .5.
		// Four rules of weight .25: LR×VL HC, LR×L HC, MR×VL MC, MR×L LC:
		// f = (2+2+1.5+1.25)/4 = 1.6875.
		{"four equal", 1.0 / 6, 0.125, 1.6875, 4},
		// VHR (shoulder, 1) x VH (1) -> NP: f = 0.
		{"far corner", 2, 1, 0, 1},
		// V=.25: LR = 1-.75 = .25, MR = .75; C=.6: M = (.75-.6)/.25 = .6,
		// H = .4. Weights LR×M .15 (MC), LR×H .1 (LC), MR×M .45 (LC),
		// MR×H .3 (HP), sum 1:
		// f = .15*1.5 + .1*1.25 + .45*1.25 + .3*.5 = .225+.125+.5625+.15 = 1.0625.
		{"unequal 1", 0.25, 0.6, 1.0625, 4},
		// V=.5: MR = .5, HR = .5; C=.8: H = (1-.8)/.25 = .8, VH = .2.
		// MR×H .4 (HP .5), MR×VH .1 (3QP .75), HR×H .4 (QP .25), HR×VH .1 (NP):
		// f = .2 + .075 + .1 + 0 = .375.
		{"unequal 2", 0.5, 0.8, 0.375, 4},
		// V=.9: HR = (1-.9)/(1/3) = .3, VHR = .7; C=.9: H = .4, VH = .6.
		// Only HR×H (QP) is not NP: f = .3*.4*.25 / 1 = .03.
		{"unequal 3", 0.9, 0.9, 0.03, 4},
		// At the centres MR and M: one rule, MR×M = LC.
		{"centres", 1.0 / 3, 0.5, 1.25, 1},
		// Below the domain: V -1 counts as 0 (LR), C 1.5 as 1 (VH): AP.
		{"clamped", -1, 1.5, 1, 1},
		// NaN inputs count as 0: HC.
		{"NaN", math.NaN(), math.NaN(), 2, 1},
		// V huge: VHR; C = .25 exactly L: VHR×L = QP.
		{"V huge", 1e9, 0.25, 0.25, 1},
		// V=Inf: VHR; C = 0: QP.
		{"V Inf", math.Inf(1), 0, 0.25, 1},
	}
	s := DefaultSystem()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, fired := s.Infer(c.v, c.c)
			if math.Abs(f-c.want) > eps {
				t.Errorf("Infer(%g, %g) = %.15g, want %g (fired %v)", c.v, c.c, f, c.want, fired)
			}
			if len(fired) != c.rules {
				t.Errorf("Infer(%g, %g) fired %d rules, want %d: %v", c.v, c.c, len(fired), c.rules, fired)
			}
			var sum float64
			for _, r := range fired {
				sum += r.Strength
			}
			// The default sets are partitions of unity: strengths add to 1.
			if math.Abs(sum-1) > eps {
				t.Errorf("strengths add to %g, want 1", sum)
			}
		})
	}
}

func TestInferFiringsNamed(t *testing.T) {
	_, fired := DefaultSystem().Infer(0.25, 0.6)
	var got []string
	for _, f := range fired {
		got = append(got, f.String())
	}
	want := "LR×M→MC 0.15, LR×H→LC 0.1, MR×M→LC 0.45, MR×H→HP 0.3"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("firings %s, want %s", s, want)
	}
}

// grid returns n+1 points from lo to hi.
func grid(lo, hi float64, n int) []float64 {
	out := make([]float64, n+1)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	return out
}

// TestInferProperties checks, over a grid of V in [0, 1.5] and C in
// [0, 1]: f within [0, 2] (the output range); f non-increasing in V for
// fixed C; and Lipschitz continuity. The default memberships add up to 1,
// so f(V, C) = sum_ij muV_i muC_j y_ij is bilinear interpolation of the
// rule table between centres. Every column of the table is non-increasing
// downwards (LR..VHR), hence f is non-increasing in V. The largest step
// between neighbouring cells is 1 over a V spacing of 1/3 (MR->HR in
// columns VL and M) and .75 over a C spacing of .25 (MR: H HP .5 -> the
// LC 1.25 before it), so |df| <= 3|dV| + 3|dC|.
func TestInferProperties(t *testing.T) {
	s := DefaultSystem()
	vs, cs := grid(0, 1.5, 150), grid(0, 1, 100)
	for _, c := range cs {
		prev := math.Inf(1)
		for _, v := range vs {
			f, _ := s.Infer(v, c)
			if f < 0 || f > 2 {
				t.Fatalf("f(%g, %g) = %g outside [0, 2]", v, c, f)
			}
			if f > prev+eps {
				t.Fatalf("f not non-increasing in V at C=%g: f(%g) = %g > %g", c, v, f, prev)
			}
			prev = f
		}
	}
	seed := int64(20260611)
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 20000; i++ {
		v, c := rng.Float64()*1.4, rng.Float64()
		dv, dc := (rng.Float64()-0.5)*1e-3, (rng.Float64()-0.5)*1e-3
		v2, c2 := math.Max(0, v+dv), math.Min(1, math.Max(0, c+dc))
		f1, _ := s.Infer(v, c)
		f2, _ := s.Infer(v2, c2)
		if bound := 3*math.Abs(v2-v) + 3*math.Abs(c2-c) + 1e-12; math.Abs(f2-f1) > bound {
			t.Fatalf("seed %d: |f(%g,%g) - f(%g,%g)| = %g > %g", seed, v, c, v2, c2, math.Abs(f2-f1), bound)
		}
	}
}

// TestInferNotMonotoneInC pins a property of the rule base (docs/models.md §5): at
// V = MR the row is MC LC LC HP 3QP, so f rises from HP .5 at C = .75 to
// 3QP .75 at C = 1: more utilisation, less consolidation is not true
// everywhere. (It is monotone in V, see TestInferProperties.)
func TestInferNotMonotoneInC(t *testing.T) {
	s := DefaultSystem()
	h, _ := s.Infer(1.0/3, 0.75)
	vh, _ := s.Infer(1.0/3, 1)
	if h != 0.5 || vh != 0.75 {
		t.Errorf("f(MR, H) = %g, f(MR, VH) = %g; want .5 and .75", h, vh)
	}
}

func TestDefaultSystemValid(t *testing.T) {
	s := DefaultSystem()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range s.Rules {
		n += len(row)
	}
	if n != 20 {
		t.Errorf("%d rules, want 20", n)
	}
	// A fresh copy each time: changing one does not change the next.
	s.Rules[0][0] = "NP"
	s.Outputs["HC"] = 9
	if d := DefaultSystem(); d.Rules[0][0] != "HC" || d.Outputs["HC"] != 2 {
		t.Error("DefaultSystem shares state between calls")
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(s *System)
		field string
	}{
		{"unknown output", func(s *System) { s.Rules[2][3] = "XX" }, "rules.HR[3]"},
		{"short row", func(s *System) { s.Rules[1] = s.Rules[1][:4] }, "rules.MR"},
		{"missing row", func(s *System) { s.Rules = s.Rules[:3] }, "rules"},
		{"left above centre", func(s *System) { s.C.Sets[2].Left = 0.6 }, "c_sets.M.left"},
		{"right below centre", func(s *System) { s.V.Sets[1].Right = 0.3 }, "v_sets.MR.right"},
		{"unordered", func(s *System) { s.C.Sets[2].Centre = 0.25 }, "c_sets.M.centre"}, // M's centre on L's
		// L now ends at .4 and M starts at .45: no set covers C = .42.
		{"gap", func(s *System) { s.C.Sets[1].Right = 0.4; s.C.Sets[2].Left = 0.45 }, "c_sets.M.left"},
		{"no right shoulder on V", func(s *System) { s.V.Sets[3].ShoulderRight = false; s.V.Sets[3].Right = 2 }, "v_sets.VHR"},
		{"no left shoulder", func(s *System) {
			s.C.Sets[0].ShoulderLeft = false
			s.C.Sets[0].Centre, s.C.Sets[0].Left = 0.1, 0
		}, "c_sets.VL"},
		{"inner shoulder", func(s *System) { s.V.Sets[1].ShoulderLeft = true }, "v_sets.MR"},
		{"duplicate", func(s *System) { s.V.Sets[2].Name = "MR" }, "v_sets.MR"},
		{"negative output", func(s *System) { s.Outputs["NP"] = -1 }, "outputs.NP"},
		{"NaN centre", func(s *System) { s.C.Sets[2].Centre = math.NaN() }, "c_sets.M"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := DefaultSystem()
			c.edit(s)
			err := s.Validate()
			var fe *fielderr.Error
			if !errors.Is(err, ErrInvalidFuzzy) || !errors.As(err, &fe) {
				t.Fatalf("Validate = %v, want a *fielderr.Error wrapping ErrInvalidFuzzy", err)
			}
			if fe.Path != c.field {
				t.Errorf("field %q, want %q (%v)", fe.Path, c.field, err)
			}
		})
	}
	// C's last set need not be a shoulder when its right foot passes 1.
	s := DefaultSystem()
	s.C.Sets[4].ShoulderRight, s.C.Sets[4].Right = false, 1.5
	if err := s.Validate(); err != nil {
		t.Errorf("VH as a triangle reaching 1.5: %v", err)
	}
	if err := (*System)(nil).Validate(); !errors.Is(err, ErrInvalidFuzzy) {
		t.Errorf("nil system: %v", err)
	}
}

func TestInferUnvalidatedDoesNotPanic(t *testing.T) {
	s := DefaultSystem()
	s.Rules = s.Rules[:1]
	if f, fired := s.Infer(0.9, 0.9); f != 0 || fired != nil {
		t.Errorf("Infer without rules for HR/VHR = %g %v, want 0 and nothing", f, fired)
	}
}

func BenchmarkInfer(b *testing.B) {
	s := DefaultSystem()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Infer(float64(i%150)/100, float64(i%101)/100)
	}
}
