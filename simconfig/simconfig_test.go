package simconfig

import (
	"testing"
	"time"

	"github.com/bora-sched/bora/config"
)

// TestSimEnergy: the energy section becomes the simulator's energy
// configuration: the configured policy unless the sweep names one, the
// parameters, the power model and the cron of energy.schedule.
func TestEnergy(t *testing.T) {
	c, err := config.Parse([]byte(`energy:
  policy: pemp
  waiting_factor: 4
  idle_watts: 100
  consolidate: false
  violation_alpha: 5
  schedule: "*/10 * * * *"
  fuzzy:
    outputs: {NP: 0, QP: 0.25, HP: 0.5, 3QP: 0.75, AP: 1, LC: 1.25, MC: 1.5, HC: 1.75}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Energy(c.Energy, "")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Policy != "pemp" || sc.Params.Alpha != 4 || sc.Params.Fuzzy.Outputs["HC"] != 1.75 || sc.Model.IdleWatts != 100 ||
		!sc.NoConsolidation || sc.Next == nil || sc.ViolationAlpha != 5 {
		t.Fatalf("simulator energy: %+v", sc)
	}
	// */10 from 10:03:20: the next tick is 10:10.
	if got := sc.Next(time.Date(2030, 1, 1, 10, 3, 20, 0, time.UTC)).Format("15:04"); got != "10:10" {
		t.Errorf("next tick %s, want 10:10", got)
	}
	if sc, err := Energy(c.Energy, "gesp"); err != nil || sc.Policy != "gesp" {
		t.Errorf("a swept policy: %q, %v; want gesp", sc.Policy, err)
	}
}

// TestRunAdmission: a run has an admission stage only when
// admission.policy names one; the section's keys reach it.
func TestRunAdmission(t *testing.T) {
	run, err := Run(config.Default())
	if err != nil || run.Admission != nil {
		t.Fatalf("default: admission %+v, %v; want none", run.Admission, err)
	}
	c, err := config.Parse([]byte("admission:\n  policy: pacp\n  threshold: 30m\n  window: 6h\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run, err = Run(c)
	if err != nil || run.Admission == nil || run.Admission.Policy != "pacp" || run.Admission.Threshold != 30*time.Minute ||
		run.Admission.Estimator.Window != 6*time.Hour || run.Admission.Next == nil {
		t.Fatalf("pacp: %+v, %v", run.Admission, err)
	}
}
