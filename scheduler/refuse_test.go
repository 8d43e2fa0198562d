package scheduler

import (
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
