package scheduler

import (
	"testing"
	"time"
)

func TestCores(t *testing.T) {
	for cpu, want := range map[int64]string{100: "1 core", 200: "2 cores", 50: "0.5 cores", 250: "2.5 cores", 1: "0.01 cores"} {
		if got := Cores(cpu); got != want {
			t.Errorf("Cores(%d) = %q, want %q", cpu, got, want)
		}
	}
}

// TestTooLargeSaysCores: 20 VMs of 2 cores never fit on two single-core
// hosts, and the rejection says so in cores, not in hundredths.
func TestTooLargeSaysCores(t *testing.T) {
	s := twoHosts(t)
	l, _ := s.Submit(t0, Request{Name: "big", Kind: BestEffort, VMs: 20, CPU: 200, Memory: 1024,
		Duration: time.Hour, Class: Suspendable, Origin: External})
	want := "20 VMs of 2 cores and 1024 MB each never fit on this cluster"
	if l.State != Rejected || l.Reason != ReasonTooLarge || l.Detail != want {
		t.Errorf("got %s %s %q, want rejected %s %q", l.State, l.Reason, l.Detail, ReasonTooLarge, want)
	}
}
