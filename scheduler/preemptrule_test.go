package scheduler

import (
	"testing"
	"time"
)

// TestOriginRule: bora's rule of who may preempt whom, pair by pair.
func TestOriginRule(t *testing.T) {
	mk := func(o Origin, k Kind, c Class, queued bool) *Lease {
		return &Lease{Req: Request{Origin: o, Kind: k, Class: c}, queued: queued}
	}
	localBE := mk(Local, BestEffort, NonPreemptable, true)
	localDL := mk(Local, Deadline, NonPreemptable, false)
	extAR := mk(External, AdvanceReservation, NonPreemptable, false)
	extARQueued := mk(External, AdvanceReservation, Suspendable, true) // preempted itself, waiting
	extBE := mk(External, BestEffort, Suspendable, true)
	extImm := mk(External, Immediate, Cancellable, false)
	extDL := mk(External, Deadline, Migratable, false)
	extNP := mk(External, BestEffort, NonPreemptable, true)
	cases := []struct {
		name      string
		p, v      *Lease
		mayPreemp bool
	}{
		{"local best-effort preempts an external suspendable lease", localBE, extBE, true},
		{"local deadline lease preempts an external migratable one", localDL, extDL, true},
		{"external AR being placed preempts", extAR, extBE, true},
		{"external AR waiting in the queue does not", extARQueued, extBE, false},
		{"external best-effort never preempts", extBE, extDL, false},
		{"external immediate never preempts", extImm, extBE, false},
		{"external deadline never preempts", extDL, extBE, false},
		{"an external non-preemptable lease is never preempted", localBE, extNP, false},
		{"a local lease is never preempted", extAR, localDL, false},
		{"an AR may be preempted when its class allows", localBE, extARQueued, true},
		{"not itself", localBE, localBE, false},
	}
	r := OriginRule{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.MayPreempt(c.p, c.v); got != c.mayPreemp {
				t.Fatalf("MayPreempt = %v", got)
			}
			// MayPreempt is the two one-sided tests together.
			if c.p != c.v && r.MayPreempt(c.p, c.v) != (r.Preempts(c.p) && r.Preemptable(c.v)) {
				t.Fatal("MayPreempt is not Preempts and Preemptable")
			}
		})
	}
}

// TestMayBePreemptedWithin: the energy controller's estimate. On two
// hosts of one core and 1024 MB, lease A (external, suspendable, one VM of
// 1024 MB) runs from 0; suspending it takes L^s = 163.311 s (twoHosts),
// so a local lease starting 163 s from now could not have it preempted by
// then, one starting 164 s from now could. B, queued behind (both hosts
// busy with A and C), has not started: always. A non-preemptable lease:
// never.
func TestMayBePreemptedWithin(t *testing.T) {
	s := twoHosts(t)
	a, _ := s.Submit(t0, be("A", 10*time.Hour))
	np := be("C", 10*time.Hour)
	np.Class = NonPreemptable
	c, _ := s.Submit(t0, np)
	b, _ := s.Submit(t0, be("B", time.Hour))
	play(s, at(60), nil)
	if !a.Started() || !c.Started() || b.Started() {
		t.Fatalf("A started %v, C %v, B %v", a.Started(), c.Started(), b.Started())
	}
	cases := []struct {
		l    *Lease
		lead time.Duration
		want bool
	}{
		{a, 163 * time.Second, false},
		{a, 164 * time.Second, true},
		{b, 0, true},
		{c, time.Hour, false},
	}
	for _, k := range cases {
		if got := s.MayBePreemptedWithin(k.l, k.lead); got != k.want {
			t.Errorf("%s within %s: %v, want %v", k.l.Req.Name, k.lead, got, k.want)
		}
	}
}
