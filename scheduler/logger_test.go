package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// recordLog is a Logger that keeps what it is told, one line an entry.
type recordLog struct{ lines []string }

func (r *recordLog) LeaseError(id LeaseID, what string, err error) {
	r.lines = append(r.lines, fmt.Sprintf("error lease=%d %s: %v", id, what, err))
}

func (r *recordLog) Debug(msg string, f map[string]any) {
	r.lines = append(r.lines, fmt.Sprintf("debug %s %v", msg, f))
}

// TestLoggerGetsRejectionsAndForgets: the scheduler reports through the
// Logger it is given, not a logging library. On two hosts of one core, a
// lease of 3 VMs of one core can never fit: it is rejected
// (larger-than-cluster) and the Logger hears of it; lease 2 (one hour)
// is done at 1 h, so forgetting what ended before 2 h forgets 2 leases.
func TestLoggerGetsRejectionsAndForgets(t *testing.T) {
	tb := slottable.New()
	for i := 0; i < 2; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	log := &recordLog{}
	s, err := New(DefaultConfig(), tb, t0, log)
	if err != nil {
		t.Fatal(err)
	}
	big := be("big", time.Hour)
	big.VMs = 3
	l, _ := s.Submit(t0, big)
	if l.State != Rejected || l.Reason != ReasonTooLarge {
		t.Fatalf("lease 1 is %s (%s)", l.State, l.Reason)
	}
	s.Submit(t0, be("A", time.Hour))
	play(s, at(3*3600), nil)
	s.Forget(at(2 * 3600))
	want := []string{
		"debug " + l.Detail + " map[lease_id:1 reason:larger-than-cluster]",
		"debug forgot leases that ended before 2030-01-01T02:00:00Z map[leases:2]",
	}
	if fmt.Sprint(log.lines) != fmt.Sprint(want) {
		t.Fatalf("logged\n%q\nwant\n%q", log.lines, want)
	}
}
