package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
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
		writeFile(t, p, text) // helpers_test.go
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

// TestCPUProfileFlag checks --cpuprofile: a simulation writes a gzipped
// profile (what go tool pprof reads), and a file that cannot be made is a
// usage error naming the flag, before anything runs.
func TestCPUProfileFlag(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "sim.pprof")
	code, _, stderr := runArgs("simulate", "--trace", "../../testdata/scenarios/preempt.yaml", "--cpuprofile", prof, "-o", "json")
	if code != exitOK {
		t.Fatalf("simulate --cpuprofile: exit %d: %s", code, stderr)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped protobuf: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the profile reads as %d bytes, %v", len(b), err)
	}
	bad := filepath.Join(dir, "no", "such", "dir", "p.pprof")
	code, _, stderr = runArgs("simulate", "--trace", "../../testdata/scenarios/preempt.yaml", "--cpuprofile", bad)
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("simulate --cpuprofile %s: exit %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
	}
	code, _, stderr = runArgs("experiment", "../../examples/experiments/ch3-local-share.yaml", "--cpuprofile", bad, "-o", dir)
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("experiment --cpuprofile %s: exit %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
	}
}
