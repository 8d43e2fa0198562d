package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
)

// startCPUProfile starts writing a CPU profile of this process to path
// (--cpuprofile; none when path is empty) and returns what stops it,
// which turns a failure to close the file into *err unless that already
// holds one. The profile is what go tool pprof reads.
func startCPUProfile(path string) (stop func(err *error), err error) {
	if path == "" {
		return func(*error) {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usage("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func(err *error) {
		pprof.StopCPUProfile()
		if e := f.Close(); e != nil && *err == nil {
			*err = fmt.Errorf("--cpuprofile: %w", e)
		}
	}, nil
}

// Batch runs (bora simulate, bora experiment) trade memory for time: the
// collector runs when the heap has grown by batchGCPercent rather than
// Go's default 100 %, under a soft limit of half the memory the process
// may use, so a run whose live heap is large collects more often instead
// of running out. On a ch.3 run (lublin99, 3,000 leases, 32 hosts, MOV)
// this took 12 % fewer cycles for 80 MB of peak memory instead of 55 MB
// (README, "Memory and the collector in batch runs"). GOGC and GOMEMLIMIT,
// when set, are left as they are.
const batchGCPercent = 400

// batchGC applies the batch settings that getenv leaves unset, and
// returns what puts the previous ones back. Without a known memory size
// it changes nothing: a higher percentage without a limit could take five
// times a large run's live heap.
func batchGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	limit, ok := memoryForProcess()
	if !ok {
		return func() {}
	}
	prevLimit := int64(-1) // -1: the limit was left as it was
	if getenv("GOMEMLIMIT") == "" {
		prevLimit = debug.SetMemoryLimit(limit / 2)
	}
	prev := debug.SetGCPercent(batchGCPercent)
	return func() {
		debug.SetGCPercent(prev)
		if prevLimit >= 0 {
			debug.SetMemoryLimit(prevLimit)
		}
	}
}

// memoryForProcess is the memory this process may use: the machine's
// (/proc/meminfo), or its cgroup's limit when lower (cgroup v2
// memory.max, then v1 memory.limit_in_bytes). False when neither is known.
func memoryForProcess() (int64, bool) {
	total, ok := memTotal("/proc/meminfo")
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if c, ok2 := cgroupLimit(path); ok2 && (!ok || c < total) {
			total, ok = c, true
		}
	}
	return total, ok && total > 0
}

// memTotal reads MemTotal (in kB) from a meminfo file, in bytes.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 || kb > 1<<50 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// cgroupLimit reads a cgroup memory limit in bytes; "max" (none) and
// values beyond any real machine (cgroup v1's "unlimited") are not limits.
func cgroupLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0, false
	}
	return v, true
}
