package slottable

import (
	"errors"
	"testing"
	"time"
)

// TestClosedHost: a closed host keeps its reservations but is never
// offered for new ones; opened again, it is.
func TestClosedHost(t *testing.T) {
	tb := New()
	h0, _ := tb.AddHost("h0", Resources{400, 4096})
	h1, _ := tb.AddHost("h1", Resources{400, 4096})
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := tb.Add(Reservation{Lease: 1, Host: h1, Start: at, End: at.Add(time.Hour), Res: Resources{100, 1024}}); err != nil {
		t.Fatal(err)
	}
	if err := tb.SetClosed(h0, true); err != nil {
		t.Fatal(err)
	}
	q := Query{N: 2, Per: Resources{200, 1024}, Duration: time.Hour, From: at}
	// h0 closed; h1 holds 1 of 4 cores for the first hour: one 2-core VM
	// fits there at `at`, two only from at+1h.
	fit, ok := tb.EarliestFit(q)
	if !ok || !fit.Start.Equal(at.Add(time.Hour)) {
		t.Fatalf("with h0 closed: fit %v at %v, want at+1h on h1", ok, fit.Start)
	}
	for _, c := range fit.Counts {
		if c.Host == h0 {
			t.Fatalf("closed host offered: %+v", fit.Counts)
		}
	}
	if n := tb.FitCount(h0, at, at.Add(time.Hour), Resources{100, 1}, nil); n != 0 {
		t.Fatalf("FitCount on a closed host = %d, want 0", n)
	}
	if !tb.Clone().Closed(h0) {
		t.Fatal("clone lost the closed flag")
	}
	_ = tb.SetClosed(h0, false)
	fit, ok = tb.EarliestFit(q)
	if !ok || !fit.Start.Equal(at) {
		t.Fatalf("reopened: fit %v at %v, want at", ok, fit.Start)
	}
	if err := tb.SetClosed(7, true); !errors.Is(err, ErrUnknownHost) {
		t.Fatalf("unknown host: %v", err)
	}
}
