package scheduler

import (
	"strings"
	"testing"
	"time"
)

// TestTimesInTextAreInstants: reasons, history details and validation
// errors write times as instants, never as durations since the epoch.
func TestTimesInTextAreInstants(t *testing.T) {
	secs := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	s, e := oneHost(t) // epoch 2030-01-01 00:00:00 UTC

	// An advance reservation submitted at 00:20 for 00:10: its start has
	// passed; Submit rejects it and says when the start was.
	late := Request{Kind: AdvanceReservation, Arrival: secs(1200), Start: secs(600), Duration: time.Hour,
		VMs: 1, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local}
	err := late.ValidateAt(e)
	want := "start: an advance reservation must start at or after its arrival (2030-01-01 00:10:00 UTC < 2030-01-01 00:20:00 UTC)"
	if err == nil || err.Error() != want {
		t.Fatalf("ValidateAt: %v\nwant %s", err, want)
	}
	// A trace's request keeps offsets: the times of a trace are offsets.
	if err := late.Validate(); err == nil || !strings.Contains(err.Error(), "(10m0s < 20m0s)") {
		t.Fatalf("Validate: %v, want offsets (10m0s < 20m0s)", err)
	}
	l, _ := s.Submit(e.Add(secs(1200)), late)
	if l.State != Rejected || !strings.Contains(l.Detail, "2030-01-01 00:10:00 UTC < 2030-01-01 00:20:00 UTC") {
		t.Fatalf("rejected lease: %s %q", l.State, l.Detail)
	}

	// A suspendable lease V runs from 00:20; an advance reservation at
	// 02:00 preempts it: V is suspended from 02:00 - 163.311 s =
	// 01:57:16.689, and its history says so as a time.
	v := Request{Kind: BestEffort, Arrival: secs(1200), VMs: 1, CPU: 100, Memory: 1024, Duration: 5 * time.Hour,
		Class: Suspendable, Origin: External}
	vl, _ := s.Submit(e.Add(secs(1200)), v)
	ar := Request{Kind: AdvanceReservation, Arrival: secs(1800), Start: 2 * time.Hour, Duration: 30 * time.Minute,
		VMs: 1, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local}
	s.Submit(e.Add(secs(1800)), ar)
	var detail string
	for _, ev := range vl.History {
		if ev.Reason == ReasonPreempted {
			detail = ev.Detail
		}
	}
	if !strings.HasPrefix(detail, "suspend at 2030-01-01 01:57:16 UTC by lease") {
		t.Fatalf("preemption detail %q, want suspend at 2030-01-01 01:57:16 UTC by lease ...", detail)
	}
}
