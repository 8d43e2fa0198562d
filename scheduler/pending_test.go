package scheduler

import (
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// oneHost is a scheduler over one host of one core and 1024 MB with the
// default overheads: a 1024 MB VM is suspended in L^s = 0.005 +
// 1024/6.36 + 2.3 = 163.311 s; h(L) of a suspension is L^s + L^r =
// 163.311 + 126.113 = 289.425 s.
func oneHost(t *testing.T) (*Scheduler, time.Time) {
	t.Helper()
	tb := slottable.New()
	if _, err := tb.AddHost("h0", slottable.Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	epoch := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := New(cfg, tb, epoch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, epoch
}

// A preemption is counted when decided and taken back when its operation
// never happens: the lease is preempted again, earlier (one suspension,
// counted once), or ends on its own first (none).
func TestPendingPreemption(t *testing.T) {
	secs := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	v := Request{Name: "V", Kind: BestEffort, VMs: 1, CPU: 100, Memory: 1024, Duration: secs(18000),
		Class: Suspendable, Origin: External}
	ar := func(arrival, start, d float64) Request {
		return Request{Kind: AdvanceReservation, Arrival: secs(arrival), Start: secs(start), Duration: secs(d),
			VMs: 1, CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local}
	}
	const cost = 289425 * time.Millisecond // rounded: h(L) is 289.425 s to the ms
	check := func(t *testing.T, l *Lease, n int, at float64) {
		t.Helper()
		p, ok := l.Preempting()
		if l.Preemptions != n || (n > 0) != ok || l.Ops[OpSuspend] != n || (l.Overhead-time.Duration(n)*cost).Abs() > time.Millisecond {
			t.Fatalf("%d preemptions, ops %v, overhead %s, pending %v %+v; want %d", l.Preemptions, l.Ops, l.Overhead, ok, p, n)
		}
		if ok && (p.Op != OpSuspend || (p.At.Sub(l.Submitted)-secs(at)).Abs() > time.Millisecond) {
			t.Fatalf("pending %s at %s, want suspend at %v s", p.Op, p.At.Sub(l.Submitted), at)
		}
	}

	t.Run("preempted again", func(t *testing.T) {
		s, e := oneHost(t)
		l, _ := s.Submit(e, v)
		s.Submit(e.Add(secs(600)), ar(600, 6000, 1800))
		check(t, l, 1, 6000-163.311) // suspended over [5836.689, 6000)
		s.Submit(e.Add(secs(1200)), ar(1200, 3000, 600))
		check(t, l, 1, 3000-163.311) // replaced: [2836.689, 3000)
		s.Advance(e.Add(secs(3000)))
		if _, ok := l.Preempting(); ok || !l.HasSavedImages() || l.Preemptions != 1 {
			t.Fatalf("after its suspension: %s, %d preemptions, pending %v", l.State, l.Preemptions, ok)
		}
	})
	t.Run("ended first", func(t *testing.T) {
		s, e := oneHost(t)
		l, _ := s.Submit(e, v)
		s.Submit(e.Add(secs(600)), ar(600, 6000, 1800))
		check(t, l, 1, 5836.689)
		s.Finished(e.Add(secs(2400)), l.ID)
		check(t, l, 0, 0)
		// History: ..., preemption-void at 2400, done at 2400.
		if h := l.History; l.State != Done || l.Reason != "" || len(l.Ops) != 0 || h[len(h)-2].Reason != ReasonPreemptionVoid {
			t.Fatalf("%s, reason %q, ops %v, history %v; want done, no reason, none, preemption-void", l.State, l.Reason, l.Ops, h)
		}
	})
}
