package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's percentage without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestBatchGC(t *testing.T) {
	if _, ok := memoryForProcess(); !ok {
		t.Skip("the memory of this machine is not known here")
	}
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	restore := batchGC(func(string) string { return "" })
	if got := gcPercent(); got != batchGCPercent {
		t.Errorf("GC percent during a batch run = %d, want %d", got, batchGCPercent)
	}
	mem, _ := memoryForProcess()
	if got := debug.SetMemoryLimit(-1); got != mem/2 {
		t.Errorf("memory limit during a batch run = %d, want half of %d", got, mem)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("GC percent after = %d, want %d back", got, before)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit after = %d, want %d back", got, limit)
	}

	// The user's GOGC wins: nothing changes.
	restore = batchGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := gcPercent(); got != before {
		t.Errorf("with GOGC set, GC percent = %d, want %d left alone", got, before)
	}
	restore()
	// GOMEMLIMIT set: the percentage changes, the limit does not.
	restore = batchGC(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("with GOMEMLIMIT set, limit = %d, want %d left alone", got, limit)
	}
	restore()
}

func TestMemoryFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, ok := memTotal(write("meminfo", "MemFree:  100 kB\nMemTotal:       24683520 kB\n")); !ok || got != 24683520*1024 {
		t.Errorf("memTotal = %d %v, want %d", got, ok, 24683520*1024)
	}
	for _, bad := range []string{"MemTotal: lots kB\n", "MemFree: 1 kB\n", "MemTotal: -5 kB\n", ""} {
		if got, ok := memTotal(write("bad", bad)); ok {
			t.Errorf("memTotal(%q) = %d, want no answer", bad, got)
		}
	}
	if _, ok := memTotal(filepath.Join(dir, "missing")); ok {
		t.Error("memTotal of a missing file answered")
	}
	if got, ok := cgroupLimit(write("max", "2147483648\n")); !ok || got != 2<<30 {
		t.Errorf("cgroupLimit = %d %v, want 2 GiB", got, ok)
	}
	// No limit: cgroup v2's "max", cgroup v1's page-rounded maximum.
	for _, none := range []string{"max\n", "9223372036854771712\n", "0\n", "x"} {
		if got, ok := cgroupLimit(write("none", none)); ok {
			t.Errorf("cgroupLimit(%q) = %d, want no limit", none, got)
		}
	}
}
