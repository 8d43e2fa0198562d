package admission

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// FuzzRestore: whatever a damaged store holds as the admission snapshot,
// Restore refuses it with ErrInvalid or takes it, and a controller that
// took it recomputes, decides and snapshots again without a panic.
//
//	go test ./admission -run '^$' -fuzz FuzzRestore -fuzztime 30s
func FuzzRestore(f *testing.F) {
	ctl, err := NewController(testConfig(PACP), t0)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 30 {
		for _, o := range []Observation{{Kind: LocalArrival, At: at(float64(i) * 3)}, {Kind: ExternalArrival, At: at(float64(i)*3 + 1)}} {
			if err := ctl.Observe(o); err != nil {
				f.Fatal(err)
			}
		}
	}
	good, _ := json.Marshal(ctl.Snapshot())
	f.Add(good)
	f.Add([]byte(`{"estimator":{"observations":[{"kind":"local-end","at":"2030-01-01T00:00:00Z","run_s":-1}]}}`))
	f.Add([]byte(`{"state":{"limit":{"k":-3}}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		c, err := NewController(testConfig(PACP), t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Restore(s); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Restore: %v, want ErrInvalid", err)
			}
			return
		}
		now := at(200)
		if err := c.Recompute(now); err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrWarmingUp) {
			t.Logf("Recompute: %v", err)
		}
		c.Decide(now.Add(time.Second), 3)
		if _, err := json.Marshal(c.Snapshot()); err != nil {
			t.Fatalf("snapshot after a restore: %v", err)
		}
	})
}
