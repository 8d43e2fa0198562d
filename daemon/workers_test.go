package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/power"
	"github.com/bora-sched/bora/store"
)

// TestShutdownWaitsForPowerSwitch: h1 is booting (the fake power driver
// takes an hour of real time) when the daemon stops. Run returns only
// once the switch's goroutine has ended, which it does because its
// context is cancelled, well within shutdown_timeout (10 s). The cut
// boot is not taken for a failure: h1's record stays booting.
func TestShutdownWaitsForPowerSwitch(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Daemon.Clock, c.Daemon.Start = "real", ""
	c.Daemon.ShutdownTimeout = 10 * time.Second
	c.Power.Driver, c.Power.Boot, c.Power.Shutdown = "fake", time.Hour, time.Millisecond
	d := start(t, c)
	ctx := context.Background()
	if _, err := d.HostAction(ctx, admin, "h1", "off"); err != nil {
		t.Fatal(err)
	}
	waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[1].Power == "off" })
	if _, err := d.HostAction(ctx, admin, "h1", "on"); err != nil {
		t.Fatal(err)
	}
	waitHosts(t, d, "h1 booting", func(hs []api.Host) bool { return hs[1].Power == "booting" })

	began := time.Now()
	d.cancel()
	d.cancel = nil
	if err := <-d.done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("shutdown took %v: it waited for the timeout, not for the switch to end", took)
	}
	// The fake driver gives up a boot whose context ends: h1 is off again.
	if got := d.power.drv.(*power.Fake).State("h1"); got != drivers.PowerOff {
		t.Errorf("h1 in the power driver after the shutdown: %s, want off (the boot cut short)", got)
	}
	d.power.mu.Lock()
	rs := d.power.abandoned
	d.power.mu.Unlock()
	if len(rs) != 1 || rs[0].h != 1 || !rs[0].on || !errors.Is(rs[0].err, context.Canceled) {
		t.Fatalf("power switches cut short by the shutdown: %+v, want h1's boot, cancelled", rs)
	}
	// Not taken for a failed boot: the record says booting, and the next
	// start boots h1 again.
	s, err := store.Open(c.Daemon.Store, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	var h storedHost
	if err := json.Unmarshal(st.Hosts["h1"], &h); err != nil || h.Power != "booting" || h.PowerError != "" {
		t.Errorf("h1's record: power %q, error %q (%v); want booting, no error", h.Power, h.PowerError, err)
	}
}

// TestWorkersStop: stop cancels the workers' context, waits for those
// that end, and after the timeout names those still running.
func TestWorkersStop(t *testing.T) {
	w := newWorkers()
	ended := make(chan struct{})
	w.Go("obeys", func(ctx context.Context) { <-ctx.Done(); close(ended) })
	release := make(chan struct{})
	defer close(release)
	w.Go("power on h2", func(context.Context) { <-release }) // ignores its context
	w.Go("power off h1", func(context.Context) { <-release })
	began := time.Now()
	left := w.stop(50 * time.Millisecond)
	if took := time.Since(began); took < 50*time.Millisecond {
		t.Errorf("stop returned after %v, before the timeout", took)
	}
	select {
	case <-ended:
	default:
		t.Error("the goroutine that obeys its context did not end")
	}
	if want := []string{"power off h1", "power on h2"}; !reflect.DeepEqual(left, want) {
		t.Errorf("still running: %q, want %q", left, want)
	}
}
