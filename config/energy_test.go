package config

import (
	"errors"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// TestEnergySection: the energy keys, as a section of the file (with the
// fuzzy system) and one by one with Set; the parameters built from them
// (the simulator's energy configuration: cmd/bora's TestSimEnergy).
func TestEnergySection(t *testing.T) {
	c, err := Parse([]byte(`energy:
  policy: pemp
  waiting_factor: 4
  grace: 10m
  tick: 1m
  idle_watts: 100
  busy_watts: 200
  boot: 90s
  fuzzy:
    outputs: {NP: 0, QP: 0.25, HP: 0.5, 3QP: 0.75, AP: 1, LC: 1.25, MC: 1.5, HC: 1.75}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := c.Energy
	if e.Policy != "pemp" || e.WaitingFactor != 4 || e.Grace != 10*time.Minute || e.Tick != time.Minute ||
		e.IdleWatts != 100 || e.BusyWatts != 200 || e.Boot != 90*time.Second || e.Shutdown != time.Minute || !e.Consolidate {
		t.Errorf("energy: %+v", e)
	}
	p, err := e.Params()
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 4 || p.Fuzzy.Outputs["HC"] != 1.75 {
		t.Errorf("energy parameters: %+v", p)
	}
	for _, kv := range [][2]string{{"energy.policy", "GESP"}, {"energy.waiting_factor", "2.5"}, {"energy.consolidate", "false"}, {"energy.shutdown", "30"}, {"energy.violation_alpha", "5"}, {"energy.switch_off_ahead", "true"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("%s: %v", kv[0], err)
		}
	}
	if e := c.Energy; e.Policy != "gesp" || e.WaitingFactor != 2.5 || e.Consolidate || e.Shutdown != 30*time.Second || e.ViolationAlpha != 5 || !e.SwitchOffAhead {
		t.Errorf("after Set: %+v", e)
	}
}

func TestEnergyErrors(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string
		unknown    bool
	}{
		{"unknown key", "energy:\n  polcy: pemp\n", []string{"t.yaml:2", "energy.polcy", "unknown key"}, true},
		{"unknown policy", "energy:\n  policy: greedy\n", []string{"energy.policy", "greedy", "always-on, gesp, pemp, sesp"}, false},
		{"alpha", "energy:\n  waiting_factor: -1\n", []string{"energy.waiting_factor", "positive"}, false},
		{"grace", "energy:\n  grace: -5m\n", []string{"energy.grace"}, false},
		{"watts", "energy:\n  idle_watts: -3\n", []string{"energy.idle_watts"}, false},
		{"tick", "energy:\n  tick: 0s\n", []string{"energy.tick"}, false},
		{"violation alpha", "energy:\n  violation_alpha: -5\n", []string{"energy.violation_alpha", "must not be negative, got -5"}, false},
		{"switch off ahead", "energy:\n  switch_off_ahead: maybe\n", []string{"t.yaml:2", "energy.switch_off_ahead", "maybe"}, false},
		{"switch off ahead never pays", "energy:\n  switch_off_ahead: true\n  idle_watts: 10\n  off_watts: 10\n", []string{"energy.switch_off_ahead", "never pays"}, false},
		{"schedule", "energy:\n  schedule: '61 * * * *'\n", []string{"energy.schedule", "61 * * * *"}, false},
		{"fuzzy rule", "energy:\n  fuzzy:\n    rules: {LR: HC HC MC LC, MR: MC LC LC HP 3QP, HR: HP HP QP QP NP, VHR: QP QP NP NP NP}\n", []string{"energy.fuzzy.rules"}, false},
		{"fuzzy key", "energy:\n  fuzzy:\n    rule: {}\n", []string{"t.yaml:3", "energy.fuzzy.rule: unknown key"}, true},
		{"fuzzy set key", "energy:\n  fuzzy:\n    c_sets:\n      VL: {centre: 0, width: 1}\n", []string{"t.yaml:4", "energy.fuzzy.c_sets.VL.width: unknown key"}, true},
	} {
		t.Run(c.name, func(t *testing.T) { wantParseError(t, c.yaml, c.want, c.unknown) })
	}
	c := Default()
	if err := c.Set("energy.fuzzy", "x"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("Set energy.fuzzy: %v", err)
	}
}

// TestEnergyNeedsPowerDriver: borad refuses an energy policy that switches
// hosts without a power driver.
func TestEnergyNeedsPowerDriver(t *testing.T) {
	c := Default()
	c.Hosts = []HostSpec{{Name: "h", CPU: 1, Memory: 1024}}
	c.Energy.Policy = "pemp"
	err := c.ValidateDaemon()
	var fe *fielderr.Error
	if !errors.As(err, &fe) || fe.Path != "energy.policy" {
		t.Fatalf("pemp without a power driver: %v", err)
	}
	c.Power.Driver = "fake"
	if err := c.ValidateDaemon(); err != nil {
		t.Fatal(err)
	}
	c.Energy.Policy, c.Power.Driver = "always-on", "none"
	if err := c.ValidateDaemon(); err != nil {
		t.Fatal(err)
	}
}

// TestSampleEnergyIsTheDefault: the sample config's energy section is the
// defaults, fuzzy system included.
func TestSampleEnergyIsTheDefault(t *testing.T) {
	c, err := Load("../docs/sample-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultEnergy()
	e := c.Energy
	if e.Policy != d.Policy || e.WaitingFactor != d.WaitingFactor || e.Grace != d.Grace || e.Tick != d.Tick ||
		e.Consolidate != d.Consolidate || e.PowerModel != d.PowerModel || e.SwitchOffAhead != d.SwitchOffAhead {
		t.Errorf("sample energy %+v, default %+v", e, d)
	}
	fz, err := e.Fuzzy.Build()
	if err != nil {
		t.Fatal(err)
	}
	def, _ := d.Fuzzy.Build()
	for _, p := range [][2]float64{{0, 0}, {0.2, 0.6}, {0.5, 0.9}, {1, 1}} {
		a, _ := fz.Infer(p[0], p[1])
		b, _ := def.Infer(p[0], p[1])
		if a != b {
			t.Errorf("f(%v) = %v from the sample, %v by default", p, a, b)
		}
	}
}

// TestEnergySchedule: energy.schedule is a cron for the controller
// instead of energy.tick; unset, there is none (the tick runs).
func TestEnergySchedule(t *testing.T) {
	c := Default()
	if next, err := c.Energy.Cron(); err != nil || next != nil {
		t.Fatalf("unset: %v, %v; want no schedule", next != nil, err)
	}
	if err := c.Set("energy.schedule", "*/10 * * * *"); err != nil {
		t.Fatal(err)
	}
	next, err := c.Energy.Cron()
	if err != nil || next == nil {
		t.Fatalf("*/10: %v", err)
	}
	at := time.Date(2030, 1, 1, 10, 3, 20, 0, time.UTC)
	for _, want := range []string{"10:10", "10:20", "10:30"} {
		at = next(at)
		if got := at.Format("15:04"); got != want {
			t.Fatalf("next tick %s, want %s", got, want)
		}
	}
}
