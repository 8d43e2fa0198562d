package sim

import (
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

// TestGanttLog records more intervals than several chunks hold and reads
// them back in order, whole and stopped early, with the chunks doubling
// from 256 to ganttChunk.
func TestGanttLog(t *testing.T) {
	var g ganttLog
	if g.len() != 0 {
		t.Fatalf("empty log has %d intervals", g.len())
	}
	for range g.all() {
		t.Fatal("empty log yields an interval")
	}
	const n = 3*ganttChunk + 17
	for i := range n {
		g.add(scheduler.Interval{Lease: scheduler.LeaseID(i), VMs: i % 7})
	}
	if g.len() != n {
		t.Fatalf("len = %d, want %d", g.len(), n)
	}
	i := 0
	for iv := range g.all() {
		if int(iv.Lease) != i || iv.VMs != i%7 {
			t.Fatalf("interval %d is lease %d with %d VMs", i, iv.Lease, iv.VMs)
		}
		i++
	}
	if i != n {
		t.Fatalf("all yielded %d intervals, want %d", i, n)
	}
	want := []int{256, 512, 1024, 2048, 4096, 8192, 8192, 8192}
	var caps []int
	for _, c := range g.chunks {
		caps = append(caps, cap(c))
	}
	if len(caps) != len(want) {
		t.Fatalf("chunk capacities %v, want %v", caps, want)
	}
	for k := range want {
		if caps[k] != want[k] {
			t.Fatalf("chunk capacities %v, want %v", caps, want)
		}
	}
	seen := 0
	for iv := range g.all() {
		if iv.Lease == 300 {
			break
		}
		seen++
	}
	if seen != 300 {
		t.Fatalf("stopped at lease 300 after %d intervals, want 300", seen)
	}
}
