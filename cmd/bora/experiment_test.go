package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFormatBar: 12 of 40 runs in 36 s: 30 % of the bar, and 28 runs
// left at 3 s each, 1m24s.
func TestFormatBar(t *testing.T) {
	got := formatBar(12, 40, 36*time.Second)
	want := "[=========>                    ] 12/40 runs · about 1m24s left"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := formatBar(40, 40, time.Minute); got != "[==============================] 40/40 runs" {
		t.Errorf("done: %q", got)
	}
}

// TestProgressOffTerminal: off a terminal, one line a tenth, no escape
// codes: 20 runs give 10 lines.
func TestProgressOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	b := &progressBar{w: &buf, start: now, now: func() time.Time { return now }}
	for i := 1; i <= 20; i++ {
		b.update(i, 20)
	}
	b.clear()
	out := buf.String()
	if n := strings.Count(out, "\n"); n != 10 || strings.Contains(out, "\x1b") || !strings.Contains(out, "bora experiment: [") {
		t.Errorf("%d lines:\n%q", n, out)
	}
}
