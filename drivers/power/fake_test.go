package power

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/drivers"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// waitFor polls cond for up to 5 s of wall time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func launch(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

func result(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("did not return")
		return nil
	}
}

// A fake with a 2 min boot and a 30 s shutdown.
func TestFakeTransitions(t *testing.T) {
	cases := []struct {
		name    string
		initial drivers.PowerState
		op      func(f *Fake, ctx context.Context) error
		via     drivers.PowerState // while the operation runs
		took    time.Duration
		final   drivers.PowerState
	}{
		{"power on an off host", drivers.PowerOff, func(f *Fake, ctx context.Context) error { return f.PowerOn(ctx, "h1") },
			drivers.PowerBooting, 2 * time.Minute, drivers.PowerOn},
		{"power off an on host", drivers.PowerOn, func(f *Fake, ctx context.Context) error { return f.PowerOff(ctx, "h1") },
			drivers.PowerShuttingDown, 30 * time.Second, drivers.PowerOff},
		{"power on an on host", drivers.PowerOn, func(f *Fake, ctx context.Context) error { return f.PowerOn(ctx, "h1") },
			"", 0, drivers.PowerOn},
		{"power off an off host", drivers.PowerOff, func(f *Fake, ctx context.Context) error { return f.PowerOff(ctx, "h1") },
			"", 0, drivers.PowerOff},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sim := clock.NewSim(t0)
			f := NewFake(sim, 2*time.Minute, 30*time.Second)
			if c.initial == drivers.PowerOff {
				f.SetOff("h1")
			}
			ch := launch(func() error { return c.op(f, context.Background()) })
			if c.took == 0 {
				if err := result(t, ch); err != nil {
					t.Fatal(err)
				}
				if sim.Waiting() != 0 {
					t.Error("an idempotent call slept")
				}
			} else {
				waitFor(t, "the transition to sleep", func() bool { return sim.Waiting() == 1 })
				if got := f.State("h1"); got != c.via {
					t.Errorf("during: %s, want %s", got, c.via)
				}
				next, _ := sim.NextTimer()
				if got := next.Sub(t0); got != c.took {
					t.Errorf("takes %s, want %s", got, c.took)
				}
				sim.Set(next)
				if err := result(t, ch); err != nil {
					t.Fatal(err)
				}
			}
			if got := f.State("h1"); got != c.final {
				t.Errorf("after: %s, want %s", got, c.final)
			}
		})
	}
}

// Two PowerOn calls during one boot share it; a PowerOff during a boot
// waits for it to end, then shuts down: 2 min + 30 s.
func TestFakeConcurrentCalls(t *testing.T) {
	sim := clock.NewSim(t0)
	f := NewFake(sim, 2*time.Minute, 30*time.Second)
	f.SetOff("h1")
	ctx := context.Background()
	on1 := launch(func() error { return f.PowerOn(ctx, "h1") })
	waitFor(t, "the boot", func() bool { return sim.Waiting() == 1 })
	on2 := launch(func() error { return f.PowerOn(ctx, "h1") })
	time.Sleep(10 * time.Millisecond)
	if n := sim.Waiting(); n != 1 {
		t.Fatalf("%d timers, want the one boot", n)
	}
	sim.Set(t0.Add(2 * time.Minute))
	if err := result(t, on1); err != nil {
		t.Fatal(err)
	}
	if err := result(t, on2); err != nil {
		t.Fatal(err)
	}

	f.SetOff("h1")
	on := launch(func() error { return f.PowerOn(ctx, "h1") })
	waitFor(t, "the second boot", func() bool { return sim.Waiting() == 1 })
	off := launch(func() error { return f.PowerOff(ctx, "h1") })
	time.Sleep(10 * time.Millisecond)
	sim.Set(t0.Add(4 * time.Minute))
	if err := result(t, on); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shutdown", func() bool { return sim.Waiting() == 1 })
	if got := f.State("h1"); got != drivers.PowerShuttingDown {
		t.Errorf("after the boot: %s, want shutting-down", got)
	}
	next, _ := sim.NextTimer()
	if want := t0.Add(4*time.Minute + 30*time.Second); !next.Equal(want) {
		t.Errorf("shutdown ends at %s, want %s", next, want)
	}
	sim.Set(next)
	if err := result(t, off); err != nil {
		t.Fatal(err)
	}
	if got := f.State("h1"); got != drivers.PowerOff {
		t.Errorf("final state %s, want off", got)
	}
}

// A boot abandoned by its caller leaves the host off.
func TestFakeCancel(t *testing.T) {
	sim := clock.NewSim(t0)
	f := NewFake(sim, 2*time.Minute, 30*time.Second)
	f.SetOff("h1")
	ctx, cancel := context.WithCancel(context.Background())
	ch := launch(func() error { return f.PowerOn(ctx, "h1") })
	waitFor(t, "the boot", func() bool { return sim.Waiting() == 1 })
	cancel()
	if err := result(t, ch); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := f.State("h1"); got != drivers.PowerOff {
		t.Errorf("after cancel: %s, want off", got)
	}
	if err := f.PowerOn(context.Background(), ""); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Errorf("empty host: %v, want ErrUnknownHost", err)
	}
}

// TestFakeFaults: a fault on h1's boots makes the first take three times
// the two minutes and the second fail (after its two minutes, h1 off
// again); the third boot is plain. A fault on every host's switch-off
// fails it, the host still on.
func TestFakeFaults(t *testing.T) {
	sim := clock.NewSim(t0)
	f := NewFake(sim, 2*time.Minute, 30*time.Second)
	f.SetFaults([]Fault{
		{Op: "on", Host: "h1", Slow: 3, Times: 1},
		{Op: "on", Host: "h1", Fail: "BMC unreachable", Times: 1},
		{Op: "off", Fail: "ssh: connection refused"},
	})
	ctx := context.Background()
	boot := func(want time.Duration) error {
		t.Helper()
		f.SetOff("h1")
		began := sim.Now()
		ch := launch(func() error { return f.PowerOn(ctx, "h1") })
		waitFor(t, "the boot to sleep", func() bool { return sim.Waiting() == 1 })
		next, _ := sim.NextTimer()
		if got := next.Sub(began); got != want {
			t.Errorf("boot takes %s, want %s", got, want)
		}
		sim.Set(next)
		return result(t, ch)
	}
	if err := boot(6 * time.Minute); err != nil || f.State("h1") != drivers.PowerOn {
		t.Fatalf("slow boot: %v, %s", err, f.State("h1"))
	}
	if err := boot(2 * time.Minute); err == nil || !strings.Contains(err.Error(), "BMC unreachable") || f.State("h1") != drivers.PowerOff {
		t.Fatalf("failing boot: %v, %s; want the fault's error, off", err, f.State("h1"))
	}
	if err := boot(2 * time.Minute); err != nil || f.State("h1") != drivers.PowerOn {
		t.Fatalf("third boot: %v, %s", err, f.State("h1"))
	}
	ch := launch(func() error { return f.PowerOff(ctx, "h2") })
	waitFor(t, "the shutdown to sleep", func() bool { return sim.Waiting() == 1 })
	next, _ := sim.NextTimer()
	sim.Set(next)
	if err := result(t, ch); err == nil || !strings.Contains(err.Error(), "connection refused") || f.State("h2") != drivers.PowerOn {
		t.Fatalf("failing switch-off: %v, %s; want the fault's error, on", err, f.State("h2"))
	}
}
