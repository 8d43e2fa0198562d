package admission

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRecompute: one computation of pacp's limit over a window of n
// arrivals and n ends of each origin (the estimate is linear in the
// window, K* quadratic in K).
func BenchmarkRecompute(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := DefaultConfig()
			c.Policy = PACP
			ctl, err := NewController(c, t0)
			if err != nil {
				b.Fatal(err)
			}
			step := 24 * time.Hour / time.Duration(n)
			for i := range n {
				at := t0.Add(time.Duration(i) * step)
				for _, o := range []Observation{{Kind: LocalArrival, At: at}, {Kind: ExternalArrival, At: at},
					{Kind: LocalEnd, At: at, RunS: 90, Share: 0.001 * float64(1+i%3)}, {Kind: ExternalEnd, At: at, RunS: 90, Share: 0.001}} {
					if err := ctl.Observe(o); err != nil {
						b.Fatal(err)
					}
				}
			}
			now := t0.Add(24 * time.Hour)
			b.ResetTimer()
			for range b.N {
				if err := ctl.Recompute(now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnapshotJSON: the snapshot a daemon commits with each pass
// that changed the controller, over a window of 4n observations (n of
// each kind), encoded to JSON.
func BenchmarkSnapshotJSON(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctl, err := NewController(DefaultConfig(), t0)
			if err != nil {
				b.Fatal(err)
			}
			step := 24 * time.Hour / time.Duration(n)
			for i := range n {
				at := t0.Add(time.Duration(i) * step)
				for _, o := range []Observation{{Kind: LocalArrival, At: at}, {Kind: ExternalArrival, At: at},
					{Kind: LocalEnd, At: at, RunS: 90, Share: 0.002}, {Kind: ExternalEnd, At: at, RunS: 90, Share: 0.001}} {
					if err := ctl.Observe(o); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			for range b.N {
				data, err := json.Marshal(ctl.Snapshot())
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
			}
		})
	}
}
