package energyctl

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// TestFitsElsewhereInHostOrder: a consolidation takes the room for a
// host's leases on the other hosts in host order, so a run is
// reproducible. Four single-core hosts, all on; lease 1 (one VM of one
// core) runs on h0. Its VM fits on h1, h2 or h3 (each has one core
// free): h1's room is taken, every time (before, the hosts were tried in
// map order, which Go randomises).
func TestFitsElsewhereInHostOrder(t *testing.T) {
	tb := slottable.New()
	for i := 0; i < 4; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := scheduler.New(scheduler.DefaultConfig(), tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := s.Submit(t0, scheduler.Request{Name: "A", Kind: scheduler.BestEffort, VMs: 1, CPU: 100, Memory: 1024,
		Duration: 10 * time.Hour, Class: scheduler.Suspendable, Origin: scheduler.External})
	now := t0.Add(time.Minute)
	s.Advance(now)
	if on := s.LeasesOn(0, now); len(on) != 1 || on[0] != l.ID {
		t.Fatalf("h0 holds %v", on)
	}
	c := New(s, Config{})
	for try := 0; try < 20; try++ {
		rooms := map[slottable.HostID]*room{}
		for h := slottable.HostID(1); h < 4; h++ {
			rooms[h] = &room{free: slottable.Resources{100, 1024}, until: scheduler.PowerForever}
		}
		if !c.fitsElsewhere(now, 0, s.LeasesOn(0, now), rooms, slices.Sorted(maps.Keys(rooms))) {
			t.Fatal("lease 1 does not fit elsewhere")
		}
		for h := slottable.HostID(1); h < 4; h++ {
			want := slottable.Resources{100, 1024}
			if h == 1 {
				want = slottable.Resources{0, 0}
			}
			if got := rooms[h].free; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("try %d: h%d has %v free, want %v", try, h, got, want)
			}
		}
	}
}
