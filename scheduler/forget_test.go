package scheduler

import (
	"testing"
	"time"
)

// TestReleaseFinished: on two hosts, A (1 h) and B (2 h) start at 0. At
// 1 h A is done and its plan is over; B still runs. Release of both drops
// A from the scheduler's leases, its id list and its wake-ups, and keeps B,
// which then runs to its end at 2 h as if nothing happened.
func TestReleaseFinished(t *testing.T) {
	s := twoHosts(t)
	a, _ := s.Submit(t0, be("A", time.Hour))
	b, _ := s.Submit(t0, be("B", 2*time.Hour))
	play(s, at(3600), nil)
	if a.State != Done || b.State != Running {
		t.Fatalf("at 1 h: A %s, B %s", a.State, b.State)
	}
	if n := s.Release([]LeaseID{a.ID, b.ID}); n != 1 {
		t.Fatalf("released %d leases, want 1 (A)", n)
	}
	if s.Lease(a.ID) != nil {
		t.Fatal("A is still in the scheduler's leases")
	}
	if ls := s.Leases(); len(ls) != 1 || ls[0] != b {
		t.Fatalf("leases after release: %v", ls)
	}
	if s.Lease(b.ID) != b {
		t.Fatal("B, still running, was dropped")
	}
	play(s, at(100000), nil)
	if b.State != Done || !b.End.Equal(at(7200)) {
		t.Fatalf("B: %s at %s, want done at 2 h", b.State, b.End)
	}
	if _, ok := s.NextEvent(); ok {
		t.Fatal("a wake-up is left after both leases ended")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
