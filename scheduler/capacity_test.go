package scheduler

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// sizedCluster is a checked scheduler over hosts of the given capacities
// (h0, h1, ...), with the default overheads.
func sizedCluster(t *testing.T, caps ...slottable.Resources) *Scheduler {
	t.Helper()
	s := smallCluster(t, 0)
	for i, c := range caps {
		if _, err := s.table.AddHost(fmt.Sprintf("h%d", i), c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestSetHostCapacityGrows: h0 is not measured yet (capacity 0), h1 has
// one core. Best-effort leases A and B (one core, 1 h each) arrive at 0:
// A runs on h1, B waits for it (planned at 3600 s). At 600 s h0 reports
// one core and 1024 MB: B starts there at once. h1, switched off at 0,
// keeps its power reservation at its new size (Check).
func TestSetHostCapacityGrows(t *testing.T) {
	s := sizedCluster(t, slottable.Resources{0, 0}, slottable.Resources{100, 1024})
	a, acts := s.Submit(t0, be("A", time.Hour))
	log := render(nil, acts)
	b, acts := s.Submit(t0, be("B", time.Hour))
	log = render(log, append(acts, s.Advance(t0)...))
	if len(b.plan) == 0 || !b.plan[0].start.Equal(at(3600)) {
		t.Fatalf("B planned %v, want at 3600 s after A", b.plan)
	}
	log = play(s, at(599), log)
	acts, err := s.SetHostCapacity(at(600), 0, slottable.Resources{100, 1024})
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, acts)
	want := []string{"+0.000 start 1 [1]", "+0.000 run 1 [1]", "+600.000 start 2 [0]", "+600.000 run 2 [0]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if hasReason(a, ReasonHostResized) || hasReason(b, ReasonHostResized) {
		t.Errorf("more room moved nothing, yet the history says so: %v %v", a.History, b.History)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}

	s2 := sizedCluster(t, slottable.Resources{100, 1024}, slottable.Resources{100, 1024})
	if err := s2.PowerOff(t0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.SetHostCapacity(at(10), 1, slottable.Resources{200, 2048}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Check(); err != nil {
		t.Errorf("after resizing a host switched off: %v", err)
	}
	if c := s2.HostCapacity(1); !reflect.DeepEqual(c, slottable.Resources{200, 2048}) {
		t.Errorf("capacity %v, want [200 2048]", c)
	}
}

// TestSetHostCapacityShrinks: h0 has 3 cores, h1 one. A (two cores, 2 h)
// can only run on h0 and does, from 0; Q (two cores, 1 h) is planned on
// h0 after it, at 7200 s. At 600 s h0 reports one core: Q no longer fits
// there and is planned again (host-resized): it fits nowhere now and
// waits unplanned. A runs on, so h0 keeps two cores until A ends, closed
// to new placements (Q must not take A's room once A ends), and
// SetHostCapacity says so (ErrHostOvercommitted naming lease 1). The
// table is never over capacity. At 7200 s, A over, h0 reports one core
// again and gets it, and is opened; then 3 cores at 7300 s: Q starts
// there.
func TestSetHostCapacityShrinks(t *testing.T) {
	s := sizedCluster(t, slottable.Resources{300, 3072}, slottable.Resources{100, 1024})
	two := func(name string, d time.Duration) Request {
		r := be(name, d)
		r.CPU = 200
		return r
	}
	a, acts := s.Submit(t0, two("A", 2*time.Hour))
	log := render(nil, acts)
	q, acts := s.Submit(t0, two("Q", time.Hour))
	log = render(log, append(acts, s.Advance(t0)...))
	if len(q.plan) == 0 || !q.plan[0].start.Equal(at(7200)) || q.plan[0].hosts[0] != 0 {
		t.Fatalf("Q planned %v, want on h0 at 7200 s", q.plan)
	}
	log = play(s, at(599), log)
	_, err := s.SetHostCapacity(at(600), 0, slottable.Resources{100, 3072})
	if !errors.Is(err, ErrHostOvercommitted) || !strings.Contains(err.Error(), "leases [1]") {
		t.Fatalf("SetHostCapacity: %v, want ErrHostOvercommitted for lease 1", err)
	}
	if c := s.HostCapacity(0); !reflect.DeepEqual(c, slottable.Resources{200, 3072}) {
		t.Errorf("h0 kept %v, want [200 3072] (what A holds) until A ends", c)
	}
	if !hasReason(q, ReasonHostResized) || !hasReason(a, ReasonHostResized) {
		t.Errorf("histories lack %s: A %v, Q %v", ReasonHostResized, a.History, q.History)
	}
	if len(q.plan) != 0 || s.HostEnabled(0) {
		t.Errorf("Q planned %v, h0 open %v; want Q waiting and h0 closed", q.plan, s.HostEnabled(0))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	log = play(s, at(7200), log)
	if _, err := s.SetHostCapacity(at(7200), 0, slottable.Resources{100, 3072}); err != nil {
		t.Fatalf("once A is over: %v", err)
	}
	if acts, err := s.SetHostEnabled(at(7200), 0, true); err != nil || len(acts) != 0 || len(q.plan) != 0 {
		t.Fatalf("opening h0 of one core: %v, actions %v, Q planned %v; want nothing (Q needs two)", err, acts, q.plan)
	}
	acts, err = s.SetHostCapacity(at(7300), 0, slottable.Resources{300, 3072})
	if err != nil {
		t.Fatal(err)
	}
	log = render(log, acts)
	want := []string{"+0.000 start 1 [0]", "+0.000 run 1 [0]", "+7200.000 done 1 [0]",
		"+7300.000 start 2 [0]", "+7300.000 run 2 [0]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions\n %v\nwant %v", log, want)
	}
}

// TestSetHostCapacityMovesAFixedLease: advance reservation X (one VM of
// two cores, 1 h from 1800 s) is planned on h0 or h1, both of two cores
// or more. At 600 s its host shrinks to one core: X moves to the other
// host at the same start (history host-resized), and nothing is left over
// capacity.
func TestSetHostCapacityMovesAFixedLease(t *testing.T) {
	s := sizedCluster(t, slottable.Resources{300, 3072}, slottable.Resources{200, 2048})
	x, _ := s.Submit(t0, Request{Name: "X", Kind: AdvanceReservation, Start: 1800 * time.Second, VMs: 1, CPU: 200,
		Memory: 1024, Duration: time.Hour, Class: NonPreemptable, Origin: Local})
	if x.State != Scheduled || len(x.plan) == 0 {
		t.Fatalf("X: %s %v", x.State, x.plan)
	}
	from := x.plan[0].hosts[0]
	s.Advance(at(600))
	if _, err := s.SetHostCapacity(at(600), from, slottable.Resources{100, 3072}); err != nil {
		t.Fatal(err)
	}
	if len(x.plan) == 0 || x.plan[0].hosts[0] == from || !x.plan[0].start.Equal(at(1800)) {
		t.Errorf("X planned %v, want on the other host than h%d at 1800 s", x.plan, from)
	}
	if !hasReason(x, ReasonHostResized) || !s.HostEnabled(from) {
		t.Errorf("history %v (want %s); h%d open %v (want open: nothing stays over)", x.History, ReasonHostResized, from, s.HostEnabled(from))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
