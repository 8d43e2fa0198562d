package daemon

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
)

// TestShutdownWaitsForPowerSwitch: h1 is booting (the fake power driver
// takes an hour of real time) when the daemon stops. Run returns only
// once the switch's goroutine has ended, which it does because its
// context is cancelled: its outcome (context.Canceled) is in before Run
// returns, well within shutdown_timeout (10 s).
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
	d.power.mu.Lock()
	rs := d.power.results
	d.power.mu.Unlock()
	if len(rs) != 1 || rs[0].h != 1 || !rs[0].on || !errors.Is(rs[0].err, context.Canceled) {
		t.Fatalf("power switches ended by the shutdown: %+v, want h1's boot, cancelled", rs)
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
