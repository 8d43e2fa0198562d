package scheduler

import (
	"strings"
	"testing"
	"time"
)

// TestRefuse: a request refused before planning is a rejected lease with
// the next ID, its reason and detail, a pending-then-rejected history, no
// hosts and no actions; the next submission gets the following ID and the
// whole host, as if nothing had been refused.
func TestRefuse(t *testing.T) {
	s, epoch := oneHost(t)
	req := Request{Name: "X", Kind: BestEffort, VMs: 1, CPU: 100, Memory: 1024, Duration: time.Hour, Class: Suspendable, Origin: External}
	at := epoch.Add(time.Minute)
	l := s.Refuse(at, req, ReasonAdmissionLimit, "1 external lease admitted, limit 1 (one-at-a-time)")
	if l.ID != 1 || l.State != Rejected || l.Reason != ReasonAdmissionLimit || l.Detail != "1 external lease admitted, limit 1 (one-at-a-time)" ||
		len(l.History) != 2 || l.History[0].State != Pending || l.History[1].State != Rejected || !l.End.Equal(at) || len(l.Hosts) != 0 {
		t.Fatalf("refused lease %+v", l)
	}
	if s.Lease(1) != l {
		t.Error("the refused lease is not the scheduler's lease 1")
	}
	m, acts := s.Submit(at, req)
	if m.ID != 2 || m.State != Running || len(acts) == 0 {
		t.Errorf("next lease: id %d, state %s, %d actions; want 2, running on the free host", m.ID, m.State, len(acts))
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

// TestRefuseHoldsNothing: a lease refused before the scheduler (admission) gets the
// next ID, is rejected at now with the reason and detail given, holds no
// reservation, and does not delay anything: a best-effort lease submitted
// next (ID 2) starts at once on h0.
func TestRefuseHoldsNothing(t *testing.T) {
	s := twoHosts(t)
	l := s.Refuse(t0, be("refused", time.Hour), "over-quota", "2 VMs, at most 1")
	if l.ID != 1 || l.State != Rejected || l.Reason != "over-quota" || l.Detail != "2 VMs, at most 1" || !l.End.Equal(t0) {
		t.Fatalf("refused lease %+v", l)
	}
	if got := s.Lease(1); got != l {
		t.Fatalf("Lease(1) = %+v, want the refused lease", got)
	}
	if n := len(s.Table().Overlapping(t0, t0.Add(24*time.Hour))); n != 0 {
		t.Fatalf("%d reservations after a refusal, want none", n)
	}
	next, acts := s.Submit(t0, be("next", time.Hour))
	if next.ID != 2 || next.State == Rejected {
		t.Fatalf("next lease %+v", next)
	}
	// The default overheads have no enactment time: no prepare phase, the VM runs at once.
	if got := strings.Join(render(nil, acts), "; "); got != "+0.000 start 2 [0]; +0.000 run 2 [0]" {
		t.Errorf("actions %q, want lease 2 started at once on h0", got)
	}
}
