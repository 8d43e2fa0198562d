package daemon

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
)

// switchLog records the power driver being asked to switch a host, with
// the daemon's (simulated) time of the request.
type switchLog struct {
	mu  sync.Mutex
	d   *Daemon
	got []string
}

func (s *switchLog) Levels() []logrus.Level { return logrus.AllLevels }

func (s *switchLog) Fire(e *logrus.Entry) error {
	if e.Data["component"] != "power" || (e.Message != "switching on" && e.Message != "switching off") {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d != nil {
		s.got = append(s.got, fmt.Sprintf("%s %v %s", s.d.Now().UTC().Format("15:04:05"), e.Data["host"], e.Message))
	}
	return nil
}

func (s *switchLog) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// TestEnergySwitchOffAhead: with energy.switch_off_ahead, one host (GESP,
// grace and tick 5 minutes, booting in 2 minutes, shutting down in 1)
// holds two advance reservations, A at 01:00 for 30 minutes and B at
// 11:30. Idle, it is switched off at 00:05 (nothing ahead yet at the
// first tick, as without the option). Booked once it is off, A has it
// switched on at 00:58. After A (01:30), the tick at
// 01:35 finds it idle for the grace with B 9 h 55 min ahead: the fake
// power driver is asked to switch it off then, and on at 11:28 (B's start
// minus the boot), the boot planned at the switch-off; B starts at 11:30.
func TestEnergySwitchOffAhead(t *testing.T) {
	c := energyConfig(t.TempDir(), 1)
	c.Energy.SwitchOffAhead = true
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	sw := &switchLog{}
	lg.AddHook(sw)
	d := startLogged(t, c, lg)
	sw.mu.Lock()
	sw.d = d.Daemon
	sw.mu.Unlock()
	waitHosts(t, d, "off", allPower("off"))
	book := func(name string, at time.Time) api.Lease {
		l, err := d.CreateLease(t.Context(), admin, api.LeaseRequest{Name: name, VMs: 1, Duration: "30m",
			Start: at.Format(time.RFC3339), Class: "non-preemptable"})
		if err != nil || l.State != "scheduled" {
			t.Fatalf("advance reservation %s: %+v, %v", name, l, err)
		}
		return l
	}
	a := book("A", simStart.Add(time.Hour))
	b := book("B", simStart.Add(11*time.Hour+30*time.Minute))
	waitFor(t, d, a.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	l := waitFor(t, d, b.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	if want := simStart.Add(11*time.Hour + 30*time.Minute); l.Start == nil || !l.Start.Equal(want) {
		t.Errorf("B started at %v, want %v", l.Start, want)
	}
	assertLinesDaemon(t, sw.lines(), []string{
		"00:05:00 h0 switching off",
		"00:58:00 h0 switching on",
		"01:35:00 h0 switching off",
		"11:28:00 h0 switching on",
	})
}

func assertLinesDaemon(t *testing.T, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("power driver asked:\n got %q\nwant %q", got, want)
	}
}
