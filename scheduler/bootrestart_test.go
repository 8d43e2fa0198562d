package scheduler

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// TestPreemptedDeadlineLeaseRestartsOnBootedHost: bootCluster's h0 and h1
// are on, h2 and h3 off (boot 120 s). At 0 a local lease holds h0 for
// 10 h and migratable deadline lease D (3600 s, deadline 4500 s) runs on
// h1. At 600 s an immediate local lease L of one VM for 1 h arrives: it
// fits only by preempting D, migrated: suspended on h1 over
// [600, 763.311) (1024 MB suspended in 163.311 s), L then runs there
// until 4363.311. D has 3000 s left; on the hosts on it could restart
// only after L, on h1 at 4363.311, ending after 7000 s, beyond its
// deadline; so before the change L was rejected (no-capacity, "without
// preempting a migratable lease that could then not end by its
// deadline"). h2, switched on now, could be on at 720 s, before D's
// suspension is over: D restarts there at 763.311 s (copy 160.2 s,
// resume 126.113 s, then its 3000 s), ending at 763.311 + 160.2 +
// 126.113 + 3000 = 4049.625 s, by its deadline. So L is accepted at
// 763.311 s on h1, h2's boot is planned to end when D restarts
// ([643.311, 763.311)), TakeBoots reports it once, and D ends at
// 4049.625 s on h2.
func TestPreemptedDeadlineLeaseRestartsOnBootedHost(t *testing.T) {
	s := bootCluster(t, DefaultImmediateBootWait)
	hold := immediate3("hold", 1)
	hold.Duration = 10 * time.Hour
	h, _ := s.Submit(t0, hold)
	d, _ := s.Submit(t0, dl("D", 1, 0, 0, 3600, 4500))
	play(s, at(1), nil)
	if h.State != Running || d.State != Running || !reflect.DeepEqual(sortedHosts(d), []slottable.HostID{1}) {
		t.Fatalf("hold %s, D %s on %v (%s); want both running, D on h1", h.State, d.State, sortedHosts(d), d.Detail)
	}
	local := immediate3("L", 1)
	l, _ := s.Submit(at(600), local)
	if l.State != Scheduled {
		t.Fatalf("L: %s (%s: %s), want scheduled", l.State, l.Reason, l.Detail)
	}
	if got := ms(l.PlannedStart()); got != 763.311 {
		t.Errorf("L starts at %v s, want 763.311 (after D's suspension)", got)
	}
	if h := sortedHosts(l); !reflect.DeepEqual(h, []slottable.HostID{1}) {
		t.Errorf("L on %v, want [1]", h)
	}
	boot, on, ok := s.BootPlanned(2)
	if !ok || ms(boot) != 643.311 || ms(on) != 763.311 {
		t.Errorf("h2's boot %v-%v s (planned %v), want 643.311-763.311", ms(boot), ms(on), ok)
	}
	if got := s.TakeBoots(); len(got) != 1 || got[0].Host != 2 || !got[0].Boot.Equal(boot) || !got[0].On.Equal(on) {
		t.Errorf("TakeBoots = %+v, want h2 over [643.311, 763.311)", got)
	}
	if got := s.TakeBoots(); len(got) != 0 {
		t.Errorf("TakeBoots again = %+v, want none", got)
	}
	acts := play(s, at(20000), nil)
	if d.State != Done || d.DeadlineMissed {
		t.Fatalf("D: %s (missed %v), want done by its deadline; actions %v", d.State, d.DeadlineMissed, acts)
	}
	if end := ms(d.History[len(d.History)-1].At); end != 4049.625 {
		t.Errorf("D ends at %v s, want 4049.625 (restarted on h2 at 763.311)", end)
	}
	if !slices.Contains(acts, "+763.311 migrate 2 [2]") {
		t.Errorf("actions %v: want D migrated to h2 at 763.311 s", acts)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// ms is t in seconds from t0, to the millisecond.
func ms(t time.Time) float64 { return math.Round(t.Sub(t0).Seconds()*1000) / 1000 }
