package energyctl

import (
	"fmt"
	"testing"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// hosts builds a scheduler over hosts of the given cores (1024 MB a core),
// all off, booting in 2 minutes and shutting down in 1.
func hosts(t *testing.T, cores ...int64) *scheduler.Scheduler {
	t.Helper()
	tb := slottable.New()
	for i, c := range cores {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100 * c, 1024 * c}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := scheduler.DefaultConfig()
	cfg.CheckInvariants = true
	s, err := scheduler.New(cfg, tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.SetPowerTimes(2*time.Minute, time.Minute)
	for i := range cores {
		if err := s.MarkOff(t0, slottable.HostID(i)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// hostsFor fills the largest hosts first: 5 VMs of one core on hosts of
// 4, 2 and 1 cores take the 4-core and the 2-core hosts.
func TestHostsFor(t *testing.T) {
	c := New(hosts(t, 1, 4, 2), Config{})
	for _, tc := range []struct{ vms, want int }{{1, 1}, {4, 1}, {5, 2}, {6, 2}, {7, 3}, {9, 3}} {
		if got := c.hostsFor(tc.vms, 100, 1024); got != tc.want {
			t.Errorf("hostsFor(%d) = %d, want %d", tc.vms, got, tc.want)
		}
	}
}

// A local reservation of two VMs at 1 h, arriving at 0 on three single-
// core hosts that are off, under GESP: local need 2 - on 0 - booting 0 =
// 2 hosts switched on, h0 and h1, booting [58 min, 1 h); the hooks hear of
// it; the reservation, submitted next, is accepted on them. An idle tick
// later switches nothing.
func TestBeforeSubmitBootsInTime(t *testing.T) {
	s := hosts(t, 1, 1, 1)
	pol, _ := energy.NewPolicy("gesp", energy.DefaultParams())
	var got []string
	c := New(s, Config{Policy: pol, Alpha: 5, Start: t0, Hooks: Hooks{
		SwitchedOn: func(h slottable.HostID, boot, ready, _, _ time.Time) {
			got = append(got, fmt.Sprintf("h%d %v-%v", h, boot.Sub(t0), ready.Sub(t0)))
		}}})
	req := scheduler.Request{Kind: scheduler.AdvanceReservation, Start: time.Hour, Duration: time.Hour, VMs: 2,
		CPU: 100, Memory: 1024, Class: scheduler.NonPreemptable, Origin: scheduler.Local}
	c.BeforeSubmit(t0, req)
	if want := "[h0 58m0s-1h0m0s h1 58m0s-1h0m0s]"; fmt.Sprint(got) != want {
		t.Errorf("switched on %v, want %s", got, want)
	}
	l, _ := s.Submit(t0, req)
	if l.State != scheduler.Scheduled {
		t.Fatalf("reservation %s (%s)", l.State, l.Detail)
	}
	if st := c.Stats(); st.SwitchedOn != 2 || st.Guarded != 0 || st.Decisions != 1 {
		t.Errorf("stats %+v", st)
	}
	if acts := c.Step(t0.Add(5*time.Minute), nil); len(acts) != 0 || len(got) != 2 {
		t.Errorf("tick: %v, switched %v", acts, got)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
