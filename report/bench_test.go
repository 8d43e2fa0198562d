package report

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkWriteGantt draws Gantt charts to PNG at growing sizes, up to
// the 20k intervals over 512 hosts of a large run.
func BenchmarkWriteGantt(b *testing.B) {
	for _, size := range []struct{ intervals, hosts int }{
		{1000, 64}, {5000, 128}, {20000, 512},
	} {
		r := bigReport(size.intervals, size.hosts, 1)
		b.Run(fmt.Sprintf("intervals=%d/hosts=%d", size.intervals, size.hosts), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "gantt.png")
			for b.Loop() {
				if err := WriteGantt(path, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
