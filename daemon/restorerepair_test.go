package daemon

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// corruptLease rewrites lease id in the store at path with edit.
func corruptLease(t *testing.T, path string, id uint64, edit func(*scheduler.SavedLease)) {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	saved, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	var sl scheduler.SavedLease
	if err := json.Unmarshal(saved.Leases[id], &sl); err != nil {
		t.Fatal(err)
	}
	edit(&sl)
	data, _ := json.Marshal(sl)
	if err := st.Commit(store.Batch{Leases: map[uint64][]byte{id: data}}); err != nil {
		t.Fatal(err)
	}
}

// moveSaved moves a saved lease's requested start, plan and reservations
// by dt (a damaged record, as the old admin-suspend bug left).
func moveSaved(sl *scheduler.SavedLease, dt time.Duration) {
	sl.Ready, sl.Req.Start = sl.Ready.Add(dt), sl.Req.Start+dt
	for i := range sl.Plan {
		p := &sl.Plan[i]
		p.Start, p.End = p.Start.Add(dt), p.End.Add(dt)
		for j := range p.Reservations {
			r := &p.Reservations[j]
			r.Start, r.End = r.Start.Add(dt), r.End.Add(dt)
		}
	}
}

// TestRestoreOverbookedStore: on node1, X (2 VMs, 3 min from +30 s) runs
// over [40, 220) s and shuts down over [220, 230); the advance reservation
// Y (2 VMs, 5 min) is at +10 min. At 160 s the daemon stops and Y's stored
// plan is moved 8 min earlier, to +2 min, over X's run: the stored state
// has node1 at 4 cores over [120, 230). In the second case the store also
// says Y is running (its run phase begun at 130 s), as the old admin
// suspend bug left it.
//
// With --strict-restore the daemon refuses to start and says how to
// recover. Without it, it keeps X (its run began first), stops Y's VMs if
// they run, plans Y again at the earliest from now (160 s) where it fits,
// after X's shutdown: prepare from 230 s, run over [240, 540); it logs
// the change at warning level with lease_id 2, Y's history says
// restore-replanned and why, and node1 stays within its 2 cores while X
// ends and Y runs.
func TestRestoreOverbookedStore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running bool
		detail  string
	}{
		{"planned", false, "its saved plan would overbook a host"},
		{"running", true, "its running VMs overbook a host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := node1Config(t.TempDir())
			d, err := startStill(t, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			x, y := createXY(t, d, "+10m")
			for _, s := range []float64{30, 40, 160} {
				setTime(t, d, s)
			}
			d.stop(t)
			corruptLease(t, c.Daemon.Store, y.ID, func(sl *scheduler.SavedLease) {
				moveSaved(sl, -8*time.Minute)
				if tc.running {
					sl.Cur, sl.Entered, sl.State = 1, true, scheduler.Running
				}
			})
			checkStrictRefuses(t, c)
			checkRepaired(t, c, x.ID, y.ID, tc.detail)
		})
	}
}

// checkStrictRefuses starts a daemon with daemon.strict_restore over the
// overbooked store of c: it must refuse and say how to recover.
func checkStrictRefuses(t *testing.T, c config.Config) {
	t.Helper()
	c.Daemon.StrictRestore = true
	if _, err := startStill(t, c, nil); err == nil || !strings.Contains(err.Error(), "over capacity") ||
		!strings.Contains(err.Error(), "without --strict-restore") {
		t.Fatalf("strict restore of an overbooked store: %v", err)
	}
}

// checkRepaired starts a daemon over the overbooked store of
// TestRestoreOverbookedStore and checks what it did with X and Y.
func checkRepaired(t *testing.T, c config.Config, x, y uint64, detail string) {
	t.Helper()
	ctx := context.Background()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	hook := logtest.NewLocal(lg)
	again, err := startStill(t, c, lg)
	if err != nil {
		t.Fatalf("restore of an overbooked store: %v", err)
	}
	warned := false
	for _, e := range hook.AllEntries() {
		warned = warned || (e.Level == logrus.WarnLevel && e.Data["lease_id"] == y && e.Data["reason"] == "restore-replanned")
	}
	if !warned {
		t.Errorf("no warning with lease_id %d and reason restore-replanned", y)
	}
	ly, _ := again.GetLease(ctx, admin, y)
	found := false
	for _, e := range ly.History {
		found = found || (e.Reason == "restore-replanned" && strings.HasPrefix(e.Detail, detail) &&
			strings.Contains(e.Detail, "from 2030-01-01 00:03:50 (it was to start at 2030-01-01 00:02:00)"))
	}
	if !found {
		t.Errorf("Y's history lacks restore-replanned (%s ...) from 00:03:50: %+v", detail, ly.History)
	}
	for _, s := range []float64{160, 220, 230, 240, 300} {
		setTime(t, again, s)
		withinCapacity(t, again, time.Duration(s*float64(time.Second)).String())
	}
	if l, _ := again.GetLease(ctx, admin, x); l.State != "done" {
		t.Errorf("X at 300 s: %s, want done", l.State)
	}
	if l, _ := again.GetLease(ctx, admin, y); l.State != "running" {
		t.Errorf("Y at 300 s: %s, want running (%s %s)", l.State, l.Reason, l.Detail)
	}
}

// forgetStoredClock removes what the store at path says of the daemon's
// clock, so that a simulated clock starts again at daemon.start.
func forgetStoredClock(t *testing.T, path string) {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Commit(store.Batch{Meta: map[string][]byte{metaClock: []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
}

// TestLateStartAfterDowntime is issue 11 item 4: the advance reservation
// Y (2 VMs, 20 min) on node1 at +10 min would prepare over [600, 610) s,
// run over [610, 1810) and shut down by 1820 s. The daemon stops at 580 s
// and its simulated clock starts again at 927 s (the store's clock record
// dropped, daemon.start set): it was down 347 s = 5m47s, and Y's start
// passed 327 s = 5m27s ago. Y starts now and keeps its full 20 min:
// prepare over [927, 937), run over [937, 2137), done at 2147 s
// (00:35:47). Its history and a warning say so.
func TestLateStartAfterDowntime(t *testing.T) {
	c := node1Config(t.TempDir())
	d, err := startStill(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	y, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "Y", VMs: 2, Duration: "20m", Start: "+10m", Class: "non-preemptable"})
	if err != nil {
		t.Fatal(err)
	}
	setTime(t, d, 580)
	d.stop(t)
	forgetStoredClock(t, c.Daemon.Store)
	c.Daemon.Start = simStart.Add(927 * time.Second).Format(time.RFC3339)

	lg := logrus.New()
	lg.SetOutput(io.Discard)
	hook := logtest.NewLocal(lg)
	again, err := startStill(t, c, lg)
	if err != nil {
		t.Fatal(err)
	}
	const detail = "daemon was down 5m47s; starts 5m27s after its planned start and keeps its full 20m0s, to 2030-01-01 00:35:47"
	warned := false
	for _, e := range hook.AllEntries() {
		warned = warned || (e.Level == logrus.WarnLevel && e.Data["lease_id"] == y.ID && e.Data["detail"] == detail)
	}
	if !warned {
		t.Errorf("no warning for lease %d saying %q", y.ID, detail)
	}
	l, _ := again.GetLease(ctx, admin, y.ID)
	found := false
	for _, e := range l.History {
		found = found || (e.Reason == "started-late" && e.Detail == detail)
	}
	if !found {
		t.Errorf("Y's history lacks started-late %q: %+v", detail, l.History)
	}
	// Let Y's start reach the fake driver (its timer set on the clock)
	// before the clock moves: a jump first would start the 10 s of
	// enactment only at 937 s, and the daemon would rightly take the start
	// as late.
	setTime(t, again, 927)
	for _, c := range []struct {
		at    float64
		state string
	}{{937, "running"}, {2136, "running"}, {2137, "running"}, {2147, "done"}} {
		setTime(t, again, c.at)
		if l, _ := again.GetLease(ctx, admin, y.ID); l.State != c.state {
			t.Errorf("Y at %g s: %s, want %s", c.at, l.State, c.state)
		}
	}
}
