package slottable

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkMemoryLatency measures what one load costs on this machine when
// it depends on the one before and falls anywhere in a working set of the
// given size (a pointer chase over one cache line in each 64 bytes, in a
// random cycle): the floor under any operation whose data are spread over
// that much memory and read in no predictable order, as BenchmarkScale's
// are (random hosts and times). BenchmarkScale's table sizes report what
// their tables hold on the heap ("table-MB") to read against it.
//
//	go test ./slottable -run '^$' -bench 'MemoryLatency|ScaleHeap' -benchtime 2000000x
func BenchmarkMemoryLatency(b *testing.B) {
	for _, kb := range []int{32, 512, 4 << 10, 32 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("set=%s", sizeLabel(kb)), func(b *testing.B) {
			lines := kb * 1024 / 64
			next := make([]uint32, lines*16) // 16 uint32 to a line; only the first is read
			order := rand.New(rand.NewPCG(uint64(lines), 1)).Perm(lines)
			for i := range lines { // one cycle through every line
				next[order[i]*16] = uint32(order[(i+1)%lines] * 16)
			}
			at := uint32(order[0] * 16)
			for range lines { // touched once before timing
				at = next[at]
			}
			b.ResetTimer()
			for range b.N {
				at = next[at]
			}
			b.StopTimer()
			sink = at
		})
	}
}

var sink uint32

func sizeLabel(kb int) string {
	if kb >= 1024 {
		return fmt.Sprintf("%dMB", kb/1024)
	}
	return fmt.Sprintf("%dKB", kb)
}

// BenchmarkScaleHeap reports the heap a BenchmarkScale table holds at each
// size ("table-MB"; built as there, and kept for it; the timing means
// nothing).
func BenchmarkScaleHeap(b *testing.B) {
	for _, res := range scaleSizes {
		b.Run(scaleName("heap", res), func(b *testing.B) {
			mb, ok := scaleHeap[res]
			if !ok {
				if benchTables[[2]int{res, scaleHosts}] != nil {
					b.Skip("the table was built before it could be measured")
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				getBench(b, res, scaleHosts)
				runtime.GC()
				runtime.ReadMemStats(&after)
				mb = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
				scaleHeap[res] = mb
			}
			bt := getBench(b, res, scaleHosts)
			for range b.N {
				_ = bt.tab.Len()
			}
			b.ReportMetric(mb, "table-MB")
		})
	}
}

// scaleHeap is BenchmarkScaleHeap's measure of each size, taken once.
var scaleHeap = map[int]float64{}
