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
	s := hostsOn(t, cores...)
	s.SetPowerTimes(2*time.Minute, time.Minute)
	for i := range cores {
		if err := s.MarkOff(t0, slottable.HostID(i)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// hostsOn builds a scheduler over hosts of the given cores (1024 MB a
// core), all on.
func hostsOn(t *testing.T, cores ...int64) *scheduler.Scheduler {
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

// TestRestoredIdleMayOffAndCron: a controller started at 1 h (a daemon
// restarting) with GESP, a grace of 30 minutes and a cron every 10
// minutes, over three single-core hosts on and idle. h0 was idle since 0
// (RestoreIdle): the first tick, at 1:10, switches it off. h1 counts from
// the start: off at the first tick 30 minutes on, 1:30. h2 may not be
// switched off (MayOff) and stays on.
func TestRestoredIdleMayOffAndCron(t *testing.T) {
	tb := slottable.New()
	for i := 0; i < 3; i++ {
		if _, err := tb.AddHost(fmt.Sprintf("h%d", i), slottable.Resources{100, 1024}); err != nil {
			t.Fatal(err)
		}
	}
	start := t0.Add(time.Hour)
	s, err := scheduler.New(scheduler.DefaultConfig(), tb, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := energy.DefaultParams()
	p.Grace = 30 * time.Minute
	pol, _ := energy.NewPolicy("gesp", p)
	off := map[slottable.HostID]time.Duration{}
	every10 := func(t time.Time) time.Time { return t.Truncate(10 * time.Minute).Add(10 * time.Minute) }
	c := New(s, Config{Policy: pol, Alpha: 5, Start: start, Next: every10,
		MayOff: func(h slottable.HostID) bool { return h != 2 },
		Hooks:  Hooks{SwitchedOff: func(h slottable.HostID, now time.Time) { off[h] = now.Sub(t0) }}})
	c.RestoreIdle(0, t0)
	if got := c.IdleSince(0); !got.Equal(t0) {
		t.Errorf("h0 idle since %v, want the start of the trace", got.Sub(t0))
	}
	var ticks []time.Duration
	for now := start; now.Before(t0.Add(2 * time.Hour)); {
		next, ok := c.NextAt(true)
		if !ok {
			t.Fatal("no next tick")
		}
		now = next
		ticks = append(ticks, now.Sub(t0))
		c.Step(now, nil)
	}
	if want := "[1h10m0s 1h20m0s 1h30m0s 1h40m0s 1h50m0s 2h0m0s]"; fmt.Sprint(ticks) != want {
		t.Errorf("ticks %v, want %s", ticks, want)
	}
	if want := "map[0:1h10m0s 1:1h30m0s]"; fmt.Sprint(off) != want {
		t.Errorf("switched off %v, want %s", off, want)
	}
}

// TestLocalNeedCountsHosts: four local reservations of one VM and two
// external ones on two hosts of four cores, all from 1 h to 2 h. The local
// need at a time is the number of hosts holding a local reservation then:
// every host is counted once however many local leases it holds (four on
// two hosts: one holds two at least), external ones not at all, and
// before 1 h or from 2 h on it is 0.
func TestLocalNeedCountsHosts(t *testing.T) {
	s := hostsOn(t, 4, 4)
	tb := s.Table()
	for i, origin := range []scheduler.Origin{scheduler.Local, scheduler.External, scheduler.Local, scheduler.Local, scheduler.External, scheduler.Local} {
		req := scheduler.Request{Name: fmt.Sprint(i), Kind: scheduler.AdvanceReservation, Start: time.Hour, Duration: time.Hour,
			VMs: 1, CPU: 100, Memory: 1024, Class: scheduler.NonPreemptable, Origin: origin}
		if l, _ := s.Submit(t0, req); l.State != scheduler.Scheduled {
			t.Fatalf("lease %d: %s (%s)", i, l.State, l.Detail)
		}
	}
	c := New(s, Config{})
	want := map[slottable.HostID]int{} // local reservations by host
	for _, r := range tb.Overlapping(t0.Add(time.Hour), t0.Add(2*time.Hour)) {
		if s.Lease(r.Lease).Req.Origin == scheduler.Local {
			want[r.Host]++
		}
	}
	if len(want) == 0 || want[0]+want[1] != 4 {
		t.Fatalf("local reservations by host %v, want four", want)
	}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 0}, {59 * time.Minute, 0}, {time.Hour, len(want)}, {90 * time.Minute, len(want)}, {2 * time.Hour, 0}} {
		if got := c.localNeed(t0.Add(tc.at)); got != tc.want {
			t.Errorf("localNeed(%v) = %d, want %d (local reservations by host %v)", tc.at, got, tc.want, want)
		}
	}
}
