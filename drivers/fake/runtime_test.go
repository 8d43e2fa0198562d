package fake

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
)

// A lease set to run 10 min runs 4 min, is suspended for most of an hour,
// resumed, and exits after exactly 6 more minutes of running.
func TestRunTimeAcrossSuspension(t *testing.T) {
	e := newEnv(t, nil)
	e.d.SetRunTime(1, 10*time.Minute)
	one := vms(1, "h1", 1024)
	if err := e.timed(45*time.Second, e.start(one)); err != nil {
		t.Fatal(err)
	}
	// Running since 0:00:45; it would exit at 0:10:45.
	running := t0.Add(45 * time.Second)
	e.waitNextTimer(running.Add(10 * time.Minute))
	e.sim.Set(running.Add(4 * time.Minute))
	e.noEvent()
	// The run clock stops when the suspension begins (0:04:45): 4 min run.
	if err := e.timed(161011289308*time.Nanosecond, e.suspend(one)); err != nil {
		t.Fatal(err)
	}
	e.sim.Set(t0.Add(time.Hour)) // past the old exit time: saved VMs do not exit
	e.noEvent()
	// Resumed at 1:00:00 + 126.113374384 s; 6 min to go.
	if err := e.timed(126113374384*time.Nanosecond, e.resume(one)); err != nil {
		t.Fatal(err)
	}
	exit := t0.Add(time.Hour + 126113374384*time.Nanosecond + 6*time.Minute)
	e.waitNextTimer(exit)
	e.sim.Set(exit.Add(-time.Nanosecond))
	e.noEvent()
	e.sim.Set(exit)
	want := drivers.Event{Kind: drivers.VMExited, Lease: 1, Index: 0, Host: "h1", Detail: "ran 10m0s"}
	if got := e.event(); got != want {
		t.Errorf("event %+v, want %+v", got, want)
	}
	if got, want := e.list(), []string{"bora-1-0@h1:stopped"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	// The daemon then shuts down (nothing left to do) and cleans up.
	if err := e.timed(0, e.shutdown(one, time.Minute)); err != nil {
		t.Fatal(err)
	}
}

func TestRunTime(t *testing.T) {
	two := vms(2, "h2", 512, 512)
	cases := []struct {
		name   string
		before time.Duration // run time set after this much running
		run    time.Duration
		exits  bool
		at     time.Duration // exit, from when the VMs started running
	}{
		// set first, exits 90 s after running
		{"set before start", 0, 90 * time.Second, true, 90 * time.Second},
		// already ran 5 min when told it runs 2: exits at once, at 5 min
		{"already over", 5 * time.Minute, 2 * time.Minute, true, 5 * time.Minute},
		{"removed", 0, -1, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if c.before == 0 {
				e.d.SetRunTime(2, 90*time.Second)
			}
			e.settle(e.start(two))
			running := e.sim.Now()
			e.sim.Set(running.Add(c.before))
			if c.before > 0 || c.run < 0 {
				e.d.SetRunTime(2, c.run)
			}
			if !c.exits {
				e.sim.Set(running.Add(time.Hour))
				e.noEvent()
				return
			}
			if c.at > c.before {
				e.waitNextTimer(running.Add(c.at))
				e.sim.Set(running.Add(c.at))
			}
			for i := range 2 {
				ev := e.event()
				if ev.Kind != drivers.VMExited || ev.Index != i || ev.Lease != 2 || ev.Detail != "ran "+c.at.String() {
					t.Errorf("event %d = %+v", i, ev)
				}
			}
			if got, want := e.list(), []string{"bora-2-0@h2:stopped", "bora-2-1@h2:stopped"}; !slices.Equal(got, want) {
				t.Errorf("List = %v, want %v", got, want)
			}
		})
	}
}

// Many leases go through their lives at once while a goroutine moves the
// simulated clock whenever a timer is pending: a workout for the race
// detector and the all-or-nothing bookkeeping.
func TestConcurrentLeases(t *testing.T) {
	e := newEnv(t, nil)
	stop := make(chan struct{})
	var jumper sync.WaitGroup
	jumper.Add(1)
	go func() {
		defer jumper.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Microsecond):
			}
			// Only operations' timers: exits are thousands of hours away.
			if next, ok := e.sim.NextTimer(); ok && next.Sub(e.sim.Now()) < time.Hour {
				e.sim.Set(next)
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for l := range uint64(16) {
		e.d.SetRunTime(l+1, time.Duration(l+1)*1000*time.Hour) // never reached
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			a := vms(l+1, "h1", 1024, 512)
			b := vms(l+1, "h2", 1024, 512)
			steps := []func() error{
				func() error { return e.d.Start(ctx, a) },
				func() error { return e.d.Suspend(ctx, a) },
				func() error { return e.d.Migrate(ctx, b, hosts(2, "h1")) },
				func() error { return e.d.Resume(ctx, b) },
				func() error { return e.d.LiveMigrate(ctx, b, hosts(2, "h3")) },
				func() error { return e.d.Stop(ctx, b) },
				func() error { return e.d.Cleanup(ctx, b) },
			}
			for _, s := range steps {
				if err := s(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	jumper.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := e.list(); len(got) != 0 {
		t.Errorf("left: %v", got)
	}
}
