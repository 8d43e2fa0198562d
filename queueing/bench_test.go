package queueing

import (
	"fmt"
	"testing"
)

// BenchmarkKStar: the cost of one K* at limits of about 10, 100 and 1000
// (the stationary law costs O(K*²)). The load is rho_l = 0.3, theta 1,
// omega 1 (E(T) = 1.43) and rho_e = 2, so that E(R_K) grows about
// linearly in K (by about E(T) a step) and D = 10, 100, 1000 put K*
// at 7, 70 and 700.
func BenchmarkKStar(b *testing.B) {
	load := Load{LocalRate: 0.3, LocalServiceRate: 1, LocalCV: 1, ExternalMean: 1, ExternalRate: 1.4}
	for _, d := range []float64{10, 100, 1000} {
		b.Run(fmt.Sprintf("D=%g", d), func(b *testing.B) {
			var lim Limit
			for b.Loop() {
				lim, _ = KStar(load, d, MaxK)
			}
			b.ReportMetric(float64(lim.K), "K*")
		})
	}
}
