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

// BenchmarkExactSearch times exactFamily alone on 32 random host-model
// instances of 14 to 16 candidates whose oracle answers were worked out
// beforehand (a map read a question), so that the search's own work (the
// transversals kept and extended) is what is timed.
//
//	go test ./scheduler/preempt -run '^$' -bench ExactSearch -benchtime 300x
func BenchmarkExactSearch(b *testing.B) {
	type instance struct {
		n   int
		ans map[uint64]bool
	}
	var ins []instance
	for k := uint64(0); len(ins) < 32; k++ {
		c := randomCluster(rand.New(rand.NewPCG(k, 7)), 14+int(k%3))
		n := len(c.leases)
		if c.feasible(NewSet(n)) || !c.feasible(maskSet(fullMask(n))) {
			continue
		}
		ans := map[uint64]bool{}
		for m := uint64(0); m < 1<<n; m++ {
			ans[m] = c.feasible(maskSet(m))
		}
		ins = append(ins, instance{n, ans})
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		in := ins[i%len(ins)]
		exactFamily(in.n, func(s Set) bool {
			var m uint64
			for _, j := range s.Indexes() {
				m |= 1 << j
			}
			return in.ans[m]
		})
	}
}
