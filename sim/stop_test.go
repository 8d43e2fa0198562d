package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// hourly is n one-hour leases that all arrive at 0 on one single-core
// host: lease i runs from i h to i+1 h (no enactment overhead by
// default), so at i h exactly i leases are done.
func hourly(n int) (Config, []scheduler.Request) {
	reqs := make([]scheduler.Request, n)
	for i := range reqs {
		reqs[i] = lease(fmt.Sprint(i)).For(3600).Build()
	}
	return Config{Cluster: Cluster{Hosts: 1, CPU: 100, Memory: 1024}, Scheduler: scheduler.DefaultConfig()}, reqs
}

// TestRunContextStopsAtOnce: cancelled when the simulated clock reaches
// 10 h, the run does not take another event and says how far it got: at
// 10 h leases 0..9 are done, 10 of 100.
func TestRunContextStopsAtOnce(t *testing.T) {
	cfg, reqs := hourly(100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	after := 0
	cfg.Progress = func(p Progress) {
		if ctx.Err() != nil {
			after++
		}
		if p.Now >= 10*time.Hour {
			cancel()
		}
	}
	rep, err := RunContext(ctx, cfg, reqs)
	if rep != nil || !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want no report and ErrStopped wrapping context.Canceled", rep, err)
	}
	want := "simulation stopped at simulated time 10h00m: 10 of 100 leases done: context canceled"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if after != 0 {
		t.Errorf("%d more events after the cancel, want 0", after)
	}
}

// TestRunContextStopsWithinASecond: a run of 4,000 leases stopped from
// outside, as bora simulate's signal handler does, returns well within a
// second, with its cause.
func TestRunContextStopsWithinASecond(t *testing.T) {
	cfg, reqs := hourly(4000)
	cfg.Cluster.Hosts = 8
	cause := errors.New("interrupt")
	ctx, cancel := context.WithCancelCause(context.Background())
	started := make(chan struct{})
	var once bool
	cfg.Progress = func(Progress) {
		if !once {
			once = true
			close(started)
		}
	}
	done := make(chan error)
	go func() {
		_, err := RunContext(ctx, cfg, reqs)
		done <- err
	}()
	<-started
	cancel(cause)
	at := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, ErrStopped) || !errors.Is(err, cause) {
			t.Fatalf("got %v, want ErrStopped wrapping the cause", err)
		}
		if took := time.Since(at); took > time.Second {
			t.Errorf("returned %s after the cancel, want within a second", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not stop within 5 s of the cancel")
	}
}

// TestRunContextUnstoppedIsRun: a context that is never done, and a
// progress hook, change nothing in the report.
func TestRunContextUnstoppedIsRun(t *testing.T) {
	cfg, reqs := hourly(30)
	a, err := Run(cfg, reqs)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	cfg.Progress = func(p Progress) { calls++; _ = p.Done() }
	b, err := RunContext(context.Background(), cfg, reqs)
	if err != nil {
		t.Fatal(err)
	}
	a.Metrics.WallSeconds, b.Metrics.WallSeconds = 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || calls == 0 {
		t.Errorf("reports differ (or no progress calls: %d):\n%s\n%s", calls, ja, jb)
	}
}

func TestFormatSimTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		42 * time.Second:                    "42s",
		3*time.Minute + 5*time.Second:       "3m05s",
		3*time.Hour + 5*time.Minute:         "3h05m",
		12*24*time.Hour + 4*time.Hour + 600: "12d 04h00m",
	} {
		if got := FormatSimTime(d); got != want {
			t.Errorf("FormatSimTime(%s) = %q, want %q", d, got, want)
		}
	}
}
