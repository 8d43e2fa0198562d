package energy

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Default-system points whose f is one output centre (one rule fires):
// (V, C) at the centres of a V set and a C set.
const (
	vLR, vMR, vHR = 0.0, 1.0 / 3, 2.0 / 3
	cVL, cM, cVH  = 0.0, 0.5, 1.0
)

// idle: at now = t0+1h, x has been idle 1 h, w 30 min, y 2 min; with a
// 5 min grace x and w are due, longest idle first.
var (
	now  = at(time.Hour)
	idle = []IdleHost{{"y", at(58 * time.Minute)}, {"w", at(30 * time.Minute)}, {"x", t0}}
)

type want struct {
	on, consolidate int
	off             []string
	reason          Reason
}

func check(t *testing.T, p Policy, in Input, w want) Decision {
	t.Helper()
	d := p.Decide(in)
	got := want{d.SwitchOn, d.Consolidate, d.SwitchOff, d.Reason}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("Decide = %+v, want %+v (%s)", got, w, d.Rule)
	}
	return d
}

func TestPEMP(t *testing.T) {
	hot, err := FuzzyConfig{Outputs: map[string]float64{
		"NP": 0, "QP": 0.25, "HP": 0.5, "3QP": 0.75, "AP": 1, "LC": 1.25, "MC": 1.5, "HC": 2.3,
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	base := Input{Now: now, Need: 4, Local: true, On: 10, Off: 6, Idle: idle}
	with := func(edit func(*Input)) Input { in := base; edit(&in); return in }
	cases := []struct {
		name  string
		fuzzy *System
		in    Input
		f     float64
		want  want
	}{
		// f = QP .25: on = ceil(4*.75) = 3, the other 1 by preemption; no
		// idle host goes off while hosts are switched on.
		{"f .25", nil, with(func(in *Input) { in.V, in.C = vHR, cM }), 0.25, want{3, 0, nil, ReasonSwitchOn}},
		// Only 2 off: on 2, preempt 4-2 = 2.
		{"f .25 two off", nil, with(func(in *Input) { in.V, in.C, in.Off = vHR, cM, 2 }), 0.25, want{2, 0, nil, ReasonSwitchOn}},
		// External, which never preempts: 3 on would leave it one host
		// short, waiting; with no room on what is on it lacks all 4: on 4.
		{"f .25 external", nil, with(func(in *Input) { in.V, in.C, in.Local = vHR, cM, false }), 0.25, want{4, 0, nil, ReasonExternalLack}},
		// Room for 1 on the hosts on: it lacks 4 - 1 = 3.
		{"f .25 external room 1", nil, with(func(in *Input) { in.V, in.C, in.Local, in.Room = vHR, cM, false, 1 }), 0.25, want{3, 0, nil, ReasonExternalLack}},
		// f = .03 wants ceil(4*.97) = 4, but with room for 3 it lacks 1:
		// no more than that.
		{"f .03 external room 3", nil, with(func(in *Input) { in.V, in.C, in.Local, in.Room = 0.9, 0.9, false, 3 }), 0.03, want{1, 0, nil, ReasonExternalLack}},
		// Room for all 4: nothing on, and the idle hosts stay (they are its
		// room).
		{"f .25 external room 4", nil, with(func(in *Input) { in.V, in.C, in.Local, in.Room = vHR, cM, false, 4 }), 0.25, want{0, 0, nil, ReasonExternalLack}},
		// Lacks 3 with 2 off: 2 on.
		{"f .25 external two off", nil, with(func(in *Input) { in.V, in.C, in.Local, in.Room, in.Off = vHR, cM, false, 1, 2 }), 0.25, want{2, 0, nil, ReasonExternalLack}},
		// f = AP 1 wants none: as for a local request, idle x and w go off.
		{"f 1 external", nil, with(func(in *Input) { in.V, in.C, in.Local = vLR, cVH, false }), 1, want{0, 0, []string{"x", "w"}, ReasonPreemptOnly}},
		// None off: all 4 by preemption; idle x and w go off (10 on, local
		// need 0).
		{"f .25 none off", nil, with(func(in *Input) { in.V, in.C, in.Off = vHR, cM, 0 }), 0.25, want{0, 0, []string{"x", "w"}, ReasonNoHostOff}},
		// f = AP 1: ceil(4*0) = 0: all by preemption.
		{"f 1", nil, with(func(in *Input) { in.V, in.C = vLR, cVH }), 1, want{0, 0, []string{"x", "w"}, ReasonPreemptOnly}},
		// f = 3QP .75: ceil(4*.25) = ceil(1) = 1 exactly, preempt 3.
		{"f .75", nil, with(func(in *Input) { in.V, in.C = vMR, cVH }), 0.75, want{1, 0, nil, ReasonSwitchOn}},
		// f = .375 (TestInferDefault "unequal 2"): ceil(4*.625) = ceil(2.5) = 3.
		{"f .375", nil, with(func(in *Input) { in.V, in.C = 0.5, 0.8 }), 0.375, want{3, 0, nil, ReasonSwitchOn}},
		// f = .03: ceil(4*.97) = ceil(3.88) = 4.
		{"f .03", nil, with(func(in *Input) { in.V, in.C = 0.9, 0.9 }), 0.03, want{4, 0, nil, ReasonSwitchOn}},
		// f = NP 0: all 4 on.
		{"f 0", nil, with(func(in *Input) { in.V, in.C = 2, cVH }), 0, want{4, 0, nil, ReasonSwitchOn}},
		// f = MC 1.5: Num = round(4*.5) = 2; local need 8 <= 10 - 0 - 2.
		{"f 1.5", nil, with(func(in *Input) { in.V, in.C, in.LocalNeedAtStart, in.Idle = vLR, cM, 8, nil }), 1.5, want{0, 2, nil, ReasonConsolidate}},
		// Local need 9 > 10 - 2: blocked.
		{"f 1.5 blocked", nil, with(func(in *Input) { in.V, in.C, in.LocalNeedAtStart, in.Idle = vLR, cM, 9, nil }), 1.5, want{0, 0, nil, ReasonLocalNeedsHost}},
		// Idle x, w go off first (2 <= 10-6): 8 stay; 6 <= 8 - 2: consolidate 2.
		{"f 1.5 idle", nil, with(func(in *Input) { in.V, in.C, in.LocalNeedAtStart = vLR, cM, 6 }), 1.5, want{0, 2, []string{"x", "w"}, ReasonConsolidate}},
		// Local need 7: x, w still go off (2 <= 10-7), 8 stay, 7 > 8-2: blocked.
		{"f 1.5 idle blocked", nil, with(func(in *Input) { in.V, in.C, in.LocalNeedAtStart = vLR, cM, 7 }), 1.5, want{0, 0, []string{"x", "w"}, ReasonLocalNeedsHost}},
		// f = 1.6875: Num = round(4*.6875) = round(2.75) = 3.
		{"f 1.6875", nil, with(func(in *Input) { in.V, in.C, in.Idle = 1.0/6, 0.125, nil }), 1.6875, want{0, 3, nil, ReasonConsolidate}},
		// f = HC 2: Num = n = 4; external: no preemption.
		{"f 2 external", nil, with(func(in *Input) { in.V, in.C, in.Local, in.Idle = vLR, cVL, false, nil }), 2, want{0, 4, nil, ReasonConsolidate}},
		// HC set to 2.3: f >= 2, Num = n = 4.
		{"f 2.3", hot, with(func(in *Input) { in.V, in.C, in.Idle = vLR, cVL, nil }), 2.3, want{0, 4, nil, ReasonConsolidate}},
		// f = LC 1.25, n = 2: round(2*.25) = round(.5) = 1 (half up).
		{"f 1.25 half", nil, with(func(in *Input) { in.V, in.C, in.Need, in.Idle = vMR, cM, 2, nil }), 1.25, want{0, 1, nil, ReasonConsolidate}},
		// f = 1.0625: round(4*.0625) = round(.25) = 0.
		{"f 1.0625", nil, with(func(in *Input) { in.V, in.C, in.Idle = 0.25, 0.6, nil }), 1.0625, want{0, 0, nil, ReasonNoConsolidate}},
		// A tick with nothing queued: f = 2, n = 0; only the idle hosts.
		{"no request", nil, with(func(in *Input) { in.V, in.C, in.Need, in.Local = vLR, cVL, 0, false }), 2, want{0, 0, []string{"x", "w"}, ReasonNoRequest}},
		// 3 on, local need 2: only 1 idle host may go, the longest idle.
		{"idle capped", nil, with(func(in *Input) { in.V, in.C, in.Need, in.On, in.LocalNeedAtStart = vLR, cVL, 0, 3, 2 }), 2, want{0, 0, []string{"x"}, ReasonNoRequest}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPEMP(Params{Alpha: 5, Grace: 5 * time.Minute, Fuzzy: c.fuzzy})
			if err != nil {
				t.Fatal(err)
			}
			d := check(t, p, c.in, c.want)
			if d.F < c.f-eps || d.F > c.f+eps {
				t.Errorf("f = %.15g, want %g", d.F, c.f)
			}
			if len(d.Fired) == 0 || d.Rule == "" {
				t.Errorf("no explanation: %v %q", d.Fired, d.Rule)
			}
		})
	}
}

func TestGESPAndSESP(t *testing.T) {
	base := Input{Now: now, Need: 2, Local: true, On: 10, Off: 5, Idle: idle}
	with := func(edit func(*Input)) Input { in := base; edit(&in); return in }
	gesp := []struct {
		name string
		in   Input
		want want
	}{
		// Local need 12 - 10 on - 0 booting = 2 lacking: on 2, preempt 2-2 = 0.
		{"lacks 2", with(func(in *Input) { in.LocalNeedAtStart = 12 }), want{2, 0, nil, ReasonSwitchOn}},
		// Lacks 10, only 5 off: on 5.
		{"lacks more than off", with(func(in *Input) { in.LocalNeedAtStart = 20 }), want{5, 0, nil, ReasonSwitchOn}},
		// 11 - 10 - 1 booting = 0: covered; preempt the request's 2; no
		// idle host may go (10 - 11 < 0).
		{"booting covers", with(func(in *Input) { in.LocalNeedAtStart, in.Booting = 11, 1 }), want{0, 0, nil, ReasonLocalCovered}},
		// Local need 7: covered, x and w go off (2 <= 10-7).
		{"covered idle", with(func(in *Input) { in.LocalNeedAtStart = 7 }), want{0, 0, []string{"x", "w"}, ReasonLocalCovered}},
		{"none off", with(func(in *Input) { in.LocalNeedAtStart, in.Off = 12, 0 }), want{0, 0, nil, ReasonNoHostOff}},
		// External, even at high risk: nothing on, no preemption.
		{"external", with(func(in *Input) { in.Local, in.V = false, 5 }), want{0, 0, []string{"x", "w"}, ReasonFragments}},
	}
	g, _ := NewGESP(DefaultParams())
	for _, c := range gesp {
		t.Run("gesp/"+c.name, func(t *testing.T) { check(t, g, c.in, c.want) })
	}
	sesp := []struct {
		name string
		in   Input
		want want
	}{
		// V >= 1: switch on the request's hosts, external included.
		{"external V 1.2", with(func(in *Input) { in.Local, in.V, in.Need = false, 1.2, 3 }), want{3, 0, nil, ReasonSwitchOn}},
		{"external V 1", with(func(in *Input) { in.Local, in.V, in.Need = false, 1, 3 }), want{3, 0, nil, ReasonSwitchOn}},
		{"external V .99", with(func(in *Input) { in.Local, in.V, in.Need = false, 0.99, 3 }), want{0, 0, []string{"x", "w"}, ReasonFragments}},
		// Local, GESP lacks 2, V 1.5: max(2, n 3) = 3.
		{"local V 1.5", with(func(in *Input) { in.V, in.Need, in.LocalNeedAtStart = 1.5, 3, 12 }), want{3, 0, nil, ReasonSwitchOn}},
		// GESP lacks 5 > n 3: GESP's 5 stands.
		{"local lacks more", with(func(in *Input) { in.V, in.Need, in.LocalNeedAtStart = 1.5, 3, 15 }), want{5, 0, nil, ReasonSwitchOn}},
		// Only 1 off: on 1, preempt 3-1 = 2.
		{"local one off", with(func(in *Input) { in.V, in.Need, in.Off, in.LocalNeedAtStart = 2, 3, 1, 10 }), want{1, 0, nil, ReasonSwitchOn}},
		// V < 1: GESP.
		{"local V .5", with(func(in *Input) { in.V, in.LocalNeedAtStart = 0.5, 12 }), want{2, 0, nil, ReasonSwitchOn}},
	}
	s, _ := NewSESP(DefaultParams())
	for _, c := range sesp {
		t.Run("sesp/"+c.name, func(t *testing.T) { check(t, s, c.in, c.want) })
	}
}

func TestAlwaysOn(t *testing.T) {
	p, _ := NewAlwaysOn(DefaultParams())
	in := Input{Now: now, Need: 3, Local: true, V: 9, On: 10, Off: 5, Idle: idle}
	check(t, p, in, want{0, 0, nil, ReasonAlwaysOn})
	in.Local = false
	check(t, p, in, want{0, 0, nil, ReasonAlwaysOn})
}

func TestRegistry(t *testing.T) {
	if got := fmt.Sprint(PolicyNames()); got != "[always-on gesp pemp sesp]" {
		t.Errorf("PolicyNames = %s", got)
	}
	for _, name := range []string{"always-on", "gesp", "sesp", "pemp", "PEMP"} {
		if p, err := NewPolicy(name, DefaultParams()); err != nil || p == nil {
			t.Errorf("NewPolicy(%s) = %v, %v", name, p, err)
		}
	}
	if _, err := NewPolicy("greedy", DefaultParams()); !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("unknown name: %v", err)
	}
	bad := DefaultSystem()
	bad.Rules[2][3] = "XX"
	cases := []struct {
		name  string
		p     Params
		want  error
		field string
	}{
		{"alpha 0", Params{Alpha: 0}, ErrInvalidParams, "alpha"},
		{"alpha NaN", Params{Alpha: math.NaN()}, ErrInvalidParams, "alpha"},
		{"negative grace", Params{Alpha: 5, Grace: -time.Second}, ErrInvalidParams, "grace"},
		{"bad fuzzy", Params{Alpha: 5, Fuzzy: bad}, ErrInvalidFuzzy, "fuzzy.rules.HR[3]"},
	}
	for _, c := range cases {
		for name := range Policies {
			_, err := NewPolicy(name, c.p)
			var fe *fielderr.Error
			if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Path != c.field {
				t.Errorf("%s %s: %v, want %v on %s", name, c.name, err, c.want, c.field)
			}
		}
	}
}

func TestFewestLeases(t *testing.T) {
	hosts := []HostLeases{{"d", 3}, {"a", 1}, {"c", 0}, {"b", 1}}
	if got := fmt.Sprint(FewestLeases(hosts, 3)); got != "[c a b]" {
		t.Errorf("FewestLeases = %s, want [c a b]", got)
	}
	if got := FewestLeases(hosts, 9); len(got) != 4 {
		t.Errorf("k above the hosts: %v", got)
	}
	if got := FewestLeases(hosts, -1); len(got) != 0 {
		t.Errorf("k negative: %v", got)
	}
}

// TestPoliciesInvariants checks, over random inputs, what every policy
// promises: never more switched on than are off; idle switch-off only when
// nothing is switched on, never below the local need; no preemption for
// an external request; PEMP's consolidation leaves the local need on.
func TestPoliciesInvariants(t *testing.T) {
	seed := int64(42)
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 5000; i++ {
		on := rng.Intn(20)
		in := Input{
			Now: now, Need: rng.Intn(8), Local: rng.Intn(2) == 0,
			V: rng.Float64() * 2, C: rng.Float64(),
			On: on, Off: rng.Intn(10), Booting: rng.Intn(3),
			LocalNeedAtStart: rng.Intn(on + 3), Idle: idle[:rng.Intn(len(idle)+1)],
		}
		for _, name := range PolicyNames() {
			p, _ := NewPolicy(name, DefaultParams())
			d := p.Decide(in)
			fail := func(what string) { t.Fatalf("seed %d, %s, %+v: %s: %+v", seed, name, in, what, d) }
			switch {
			case d.SwitchOn < 0 || d.SwitchOn > in.Off:
				fail("switch-on outside [0, off]")
			case d.SwitchOn > 0 && len(d.SwitchOff) > 0:
				fail("switches hosts on and off at once")
			case len(d.SwitchOff) > 0 && in.On-len(d.SwitchOff) < in.LocalNeedAtStart:
				fail("idle switch-off below the local need")
			case d.Consolidate > 0 && in.On-len(d.SwitchOff)-d.Consolidate < in.LocalNeedAtStart:
				fail("consolidation below the local need")
			case d.Consolidate > 0 && d.SwitchOn > 0:
				fail("consolidates while switching on")
			}
		}
	}
}
