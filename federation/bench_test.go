package federation

import (
	"context"
	"testing"
)

// BenchmarkFederationSweep: one das2 federation (C64, C128, C256 behind
// the gateway, a hundredth of a day of arrivals, 14 min, seed 1) under each of
// the ch.4 policies: the unit of the ch.4 experiments' 250 runs.
func BenchmarkFederationSweep(b *testing.B) {
	text := "workload: {model: das2, seed: 1, params: {days: \"0.01\"}}\ngateway: {policy: rr}\n" +
		"clusters:\n  - {name: C64}\n  - {name: C128}\n  - {name: C256}\n"
	f, err := Parse([]byte(text), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"rr", "lrf-rnd", "bcf-rnd", "pap-rnd", "pap-rtdp", "earliest-finish"} {
		s, err := f.Setup(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p, func(b *testing.B) {
			for range b.N {
				if _, err := Run(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(s.External)), "external")
		})
	}
}
