package energyctl

import (
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// externalRoom: four single-core hosts off; h0 and h1 are switched on at
// t0 (booting to 2 min). E (external, three VMs of one core, 1 h) arrives
// at t0 and waits: three hosts' worth, two coming on. A host switched on
// at t0 is on at 2 min; over [2 min, 1 h 2 min + overheads) h0 and h1
// hold one VM of E each, h2 and h3 (off) none: room 2 of n = 3, so PEMP
// would switch on the 1 host E lacks. A local reservation on one of them
// over [30 min, 40 min) takes that host's room away: room 1.
func TestExternalRoom(t *testing.T) {
	s := hosts(t, 1, 1, 1, 1)
	c := New(s, Config{Start: t0})
	for _, h := range []slottable.HostID{0, 1} {
		if !c.PowerOn(t0, h, t0) {
			t.Fatalf("h%d not switched on", h)
		}
	}
	e, err := s.Submit(t0, scheduler.Request{Kind: scheduler.BestEffort, Duration: time.Hour, VMs: 3, CPU: 100, Memory: 1024,
		Class: scheduler.Suspendable, Origin: scheduler.External})
	if err != nil {
		t.Fatal(err)
	}
	s.Advance(t0)
	if w := c.Waiting(); len(w) != 1 || w[0].ID != e.ID {
		t.Fatalf("waiting %v, want E", w)
	}
	if got := c.externalRoom(t0, e, 3, c.Waiting()); got != 2 {
		t.Errorf("room %d, want 2", got)
	}
	ar, err := s.Submit(t0, scheduler.Request{Kind: scheduler.AdvanceReservation, Start: 30 * time.Minute, Duration: 10 * time.Minute,
		VMs: 1, CPU: 100, Memory: 1024, Class: scheduler.NonPreemptable, Origin: scheduler.Local})
	if err != nil || ar.State != scheduler.Scheduled {
		t.Fatalf("reservation: %v %v", ar, err)
	}
	if got := c.externalRoom(t0, e, 3, c.Waiting()); got != 1 {
		t.Errorf("room with the reservation %d, want 1", got)
	}
}

// TestExternalRoomWaitingChanges: the reservations of the waiting leases
// are left out of the room, whichever leases wait at each call. Two
// single-core hosts switched on at t0 (on at 2 min); A (one VM, 1 h) runs
// on one of them from 2 min, B (two VMs, 1 h) is planned on both after A,
// C (two VMs, 2 h) after B. For C from 2 min (to past 2 h 2 min), the
// host A leaves free holds one VM when B's reservations are left out (B
// waiting), none when they are not (nothing waiting); asked in turn, each
// answer follows the waiting leases of its call.
func TestExternalRoomWaitingChanges(t *testing.T) {
	s := hosts(t, 1, 1)
	c := New(s, Config{Start: t0})
	for _, h := range []slottable.HostID{0, 1} {
		if !c.PowerOn(t0, h, t0) {
			t.Fatalf("h%d not switched on", h)
		}
	}
	req := func(vms int, d time.Duration) scheduler.Request {
		return scheduler.Request{Kind: scheduler.BestEffort, Duration: d, VMs: vms, CPU: 100, Memory: 1024,
			Class: scheduler.Suspendable, Origin: scheduler.External}
	}
	var ls []*scheduler.Lease
	for _, r := range []scheduler.Request{req(1, time.Hour), req(2, time.Hour), req(2, 2*time.Hour)} {
		l, err := s.Submit(t0, r)
		if err != nil || l.State != scheduler.Scheduled {
			t.Fatalf("%v %v", l, err)
		}
		ls = append(ls, l)
	}
	b, cl := ls[1], ls[2]
	for i, waiting := range [][]*scheduler.Lease{{b}, nil, {b}, {b}, nil} {
		want := 0
		if len(waiting) > 0 {
			want = 1
		}
		if got := c.externalRoom(t0, cl, 2, waiting); got != want {
			t.Errorf("call %d, %d waiting: room %d, want %d", i, len(waiting), got, want)
		}
	}
}
