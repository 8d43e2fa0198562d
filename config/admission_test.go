package config

import (
	"errors"
	"testing"
	"time"

	"github.com/bora-sched/bora/admission"
)

// TestAdmissionSection: by default no stage (accept-all's behaviour, not
// modelled) with admission.DefaultConfig's parameters and a cron every 10
// minutes; --set reaches every key; a bad policy names the key and wraps
// admission.ErrUnknownPolicy.
func TestAdmissionSection(t *testing.T) {
	c := Default()
	if c.Admission.Modelled() {
		t.Error("default: modelled")
	}
	ac, err := c.Admission.Controller("")
	if err != nil {
		t.Fatal(err)
	}
	want := admission.DefaultConfig()
	if ac.Policy != admission.AcceptAll || ac.Estimator != want.Estimator || ac.MaxK != want.MaxK || ac.Threshold != 0 || ac.RecomputeShare != want.RecomputeShare {
		t.Errorf("default controller %+v, want %+v", ac, want)
	}
	t0 := time.Date(2026, 11, 26, 3, 3, 0, 0, time.UTC)
	if next := ac.Next(t0); !next.Equal(time.Date(2026, 11, 26, 3, 10, 0, 0, time.UTC)) {
		t.Errorf("next computation after 03:03: %v, want 03:10", next)
	}
	for k, v := range map[string]string{"admission.policy": "PACP", "admission.threshold": "30m", "admission.window": "6h",
		"admission.max_k": "50", "admission.min_samples": "5", "admission.schedule": ""} {
		if err := c.Set(k, v); err != nil {
			t.Fatalf("%s=%s: %v", k, v, err)
		}
	}
	ac, err = c.Admission.Controller("")
	if err != nil || !c.Admission.Modelled() || ac.Policy != admission.PACP || ac.Threshold != 30*time.Minute ||
		ac.Estimator.Window != 6*time.Hour || ac.MaxK != 50 || ac.Estimator.MinSamples != 5 || ac.Next != nil {
		t.Errorf("after --set: %+v, %v", ac, err)
	}
	if err := c.Set("admission.policy", "kapac"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); !errors.Is(err, admission.ErrUnknownPolicy) || err.Error() != `admission.policy: unknown policy "kapac" (want accept-all, one-at-a-time, pacp, rate)` {
		t.Errorf("bad policy: %v", err)
	}
}
