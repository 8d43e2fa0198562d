package preempt

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkChoose times Choose (MOML, which needs the whole family) on
// packed instances: exact at 8, 12 and 16 candidates, heuristic at 40 and
// 200. Each op runs over the same 16 instances; calls/op is the mean number
// of oracle calls per instance.
func BenchmarkChoose(b *testing.B) {
	for _, n := range []int{8, 12, 16, 40, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var cs []*cluster
			for k := uint64(0); len(cs) < 16; k++ {
				c := packedCluster(rand.New(rand.NewPCG(k, 9)), n)
				if !c.feasible(NewSet(0)) {
					cs = append(cs, c)
				}
			}
			calls := 0
			b.ResetTimer()
			for b.Loop() {
				for _, c := range cs {
					if _, err := Choose(MOML, c.candidates(), counted(c.feasible, &calls), DefaultExactLimit); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(calls)/float64(b.N*len(cs)), "calls/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cs)), "ns/instance")
		})
	}
}
