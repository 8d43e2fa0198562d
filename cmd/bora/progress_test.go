package main

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bora-sched/bora/sim"
)

// TestProgressLine: the line is written in place on the writer (carriage
// return, clear to the end of line), not before 3 s of wall time, at most
// every 250 ms, and cleared at the end. Two runs of 100 leases each.
func TestProgressLine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	var buf bytes.Buffer
	p := newProgressLine(&buf, 2, func() time.Time { return now })
	run0, run1 := p.hook(0), p.hook(1)
	step := func(at time.Duration, hook func(sim.Progress), simNow time.Duration, done int) {
		now = t0.Add(at)
		hook(sim.Progress{Now: simNow, Total: 100, Done: func() int { return done }})
	}
	step(time.Second, run0, time.Hour, 10)  // before 3 s: nothing
	step(time.Second, run1, 2*time.Hour, 5) // nor here
	step(4*time.Second, run0, 30*time.Hour, 40)
	// Slowest run at 2 h; 40+5 = 45 of 200 done in 4 s: 155 left take
	// 4 s * 155/45 = 13.8 s, about 14 s.
	step(4100*time.Millisecond, run1, 20*time.Hour, 60) // 100 ms after the last line: not written
	step(4200*time.Millisecond, run0, 31*time.Hour, 41) // run 0 looked 200 ms ago: not even counted
	step(4500*time.Millisecond, run1, 25*time.Hour, 70)
	// Slowest run at 25 h (run 0 last counted at 30 h); 40+70 = 110 of 200
	// in 4.5 s: 90 left take 4.5 s * 90/110 = 3.7 s, about 4 s.
	p.clear()
	want := "\r\x1b[Ksimulated 2h00m · 45 of 200 leases done · about 14s left" +
		"\r\x1b[Ksimulated 1d 01h00m · 110 of 200 leases done · about 4s left" +
		"\r\x1b[K"
	if got := buf.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestSimulateInterrupted: bora simulate stopped by Ctrl-C (here, before
// its first event) says how far it got and exits 130; standard output has
// no report.
func TestSimulateInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalError{syscall.SIGINT})
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"simulate", "--trace", "../../testdata/scenarios/preempt.yaml", "-o", "json"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	want := "bora: run MOV: simulation stopped at simulated time 0s: 0 of "
	if !strings.HasPrefix(stderr.String(), want) || !strings.HasSuffix(stderr.String(), "leases done: stopped by interrupt\n") {
		t.Errorf("stderr %q, want %q... leases done: stopped by interrupt", stderr.String(), want)
	}
}
