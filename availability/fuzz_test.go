package availability

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzRestore: whatever a damaged store holds as the hosts' records,
// Restore refuses it or takes it, and a tracker that took it goes on
// with estimates in [0, 1] and no panic.
//
//	go test ./availability -run '^$' -fuzz FuzzRestore -fuzztime 30s
func FuzzRestore(f *testing.F) {
	tr, _ := NewTracker(Defaults())
	tr.SetUsed("h1", at(0, 0), true)
	tr.SetUp("h1", at(0, 30), false)
	good, _ := json.Marshal(tr.Records())
	f.Add(good)
	f.Add([]byte(`{"h1":{"a":2}}`))
	f.Add([]byte(`{"h1":{"a":0.5,"used":true,"start":"2026-11-02T00:00:00Z","active_ns":-5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var saved map[string]Host
		if json.Unmarshal(data, &saved) != nil {
			return
		}
		tr, _ := NewTracker(Defaults())
		if tr.Restore(saved) != nil {
			return
		}
		for _, h := range tr.Hosts() {
			tr.SetUp(h, at(1, 0), true)
			tr.SetUsed(h, at(2, 0), true)
			tr.SetUsed(h, at(3, 0).Add(time.Minute), false)
			if a := tr.Estimate(h); !(a >= 0 && a <= 1) {
				t.Fatalf("host %s: estimate %v after restoring %s", h, a, data)
			}
		}
	})
}
