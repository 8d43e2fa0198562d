package fake

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/overhead"
)

func (e *env) start(v []drivers.VM) op {
	return func(ctx context.Context) error { return e.d.Start(ctx, v) }
}
func (e *env) suspend(v []drivers.VM) op {
	return func(ctx context.Context) error { return e.d.Suspend(ctx, v) }
}
func (e *env) resume(v []drivers.VM) op {
	return func(ctx context.Context) error { return e.d.Resume(ctx, v) }
}
func (e *env) migrate(v []drivers.VM, from []string) op {
	return func(ctx context.Context) error { return e.d.Migrate(ctx, v, from) }
}
func (e *env) live(v []drivers.VM, to []string) op {
	return func(ctx context.Context) error { return e.d.LiveMigrate(ctx, v, to) }
}
func (e *env) stop(v []drivers.VM) op {
	return func(ctx context.Context) error { return e.d.Stop(ctx, v) }
}
func (e *env) shutdown(v []drivers.VM, grace time.Duration) op {
	return func(ctx context.Context) error { return e.d.Shutdown(ctx, v, grace) }
}
func (e *env) cleanup(v []drivers.VM) op {
	return func(ctx context.Context) error { return e.d.Cleanup(ctx, v) }
}

// Hand-worked values of testOverheads used below:
//
//	t_s(1024) = 1024/6.36 = 161.006289308 s   t_s(512) = 80.503144654 s
//	t_r(1024) = 1024/8.12 = 126.108374384 s   t_r(512) = 63.054187192 s
//	t_copy(1024) = 1024/(1024/160.2) = 160.2 s t_copy(512) = 80.1 s
//	t_p = 5 ms, t_stop = 2 s, shutdown reserve 30 s, enactment 45 s
func TestOperationDurations(t *testing.T) {
	one := vms(1, "h1", 1024)
	two := vms(1, "h1", 1024, 512)
	apart := slices.Clone(two) // the 512 MB VM on h2
	apart[1].Host = "h2"
	onH2 := func(v []drivers.VM) []drivers.VM {
		out := slices.Clone(v)
		for i := range out {
			out[i].Host = "h2"
		}
		return out
	}
	cases := []struct {
		name  string
		edit  func(*Config)
		setup func(e *env)
		op    func(e *env) op
		want  time.Duration
		after []string
	}{
		{
			// enactment = 45 s, once for the call
			name: "start one VM", op: func(e *env) op { return e.start(one) },
			want: 45 * time.Second, after: []string{"bora-1-0@h1:running"},
		},
		{
			name: "start two VMs", op: func(e *env) op { return e.start(two) },
			want: 45 * time.Second, after: []string{"bora-1-0@h1:running", "bora-1-1@h1:running"},
		},
		{
			// Config.Boot = 20 s replaces the enactment of 45 s
			name: "start with boot override", edit: func(c *Config) { c.Boot = 20 * time.Second },
			op: func(e *env) op { return e.start(one) }, want: 20 * time.Second,
			after: []string{"bora-1-0@h1:running"},
		},
		{
			// 1*0.005 + 161.006289308 = 161.011289308 s
			name: "suspend one 1024 MB VM", setup: func(e *env) { e.settle(e.start(one)) },
			op: func(e *env) op { return e.suspend(one) }, want: 161011289308 * time.Nanosecond,
			after: []string{"bora-1-0@h1:saved"},
		},
		{
			// 2*0.005 + 161.006289308 + 80.503144654 = 241.519433962 s
			name: "suspend 1024 and 512 MB", setup: func(e *env) { e.settle(e.start(two)) },
			op: func(e *env) op { return e.suspend(two) }, want: 241519433962 * time.Nanosecond,
			after: []string{"bora-1-0@h1:saved", "bora-1-1@h1:saved"},
		},
		{
			// 126.108374384 + 1*0.005 = 126.113374384 s
			name: "resume one 1024 MB VM", setup: func(e *env) { e.settle(e.start(one)); e.settle(e.suspend(one)) },
			op: func(e *env) op { return e.resume(one) }, want: 126113374384 * time.Nanosecond,
			after: []string{"bora-1-0@h1:running"},
		},
		{
			// 126.108374384 + 63.054187192 + 2*0.005 = 189.172561576 s,
			// on another host than the one it was saved on (shared storage)
			name: "resume 1024 and 512 MB elsewhere", setup: func(e *env) { e.settle(e.start(two)); e.settle(e.suspend(two)) },
			op: func(e *env) op { return e.resume(onH2(two)) }, want: 189172561576 * time.Nanosecond,
			after: []string{"bora-1-0@h2:running", "bora-1-1@h2:running"},
		},
		{
			// local storage, the 1024 MB VM on h1 and the 512 MB one on h2:
			// the hosts in parallel, max(0.005 + 161.006289308, 0.005 +
			// 80.503144654) = 161.011289308 s
			name: "suspend on two hosts, local storage", edit: func(c *Config) { c.Overheads.Storage = overhead.StorageLocal },
			setup: func(e *env) { e.settle(e.start(apart)) },
			op:    func(e *env) op { return e.suspend(apart) }, want: 161011289308 * time.Nanosecond,
			after: []string{"bora-1-0@h1:saved", "bora-1-1@h2:saved"},
		},
		{
			// shared storage, the same two VMs one after the other:
			// 2*0.005 + 161.006289308 + 80.503144654 = 241.519433962 s
			name: "suspend on two hosts, shared storage", setup: func(e *env) { e.settle(e.start(apart)) },
			op: func(e *env) op { return e.suspend(apart) }, want: 241519433962 * time.Nanosecond,
			after: []string{"bora-1-0@h1:saved", "bora-1-1@h2:saved"},
		},
		{
			// local storage: max(126.108374384, 63.054187192) + 0.005 =
			// 126.113374384 s
			name: "resume on two hosts, local storage", edit: func(c *Config) { c.Overheads.Storage = overhead.StorageLocal },
			setup: func(e *env) { e.settle(e.start(apart)); e.settle(e.suspend(apart)) },
			op:    func(e *env) op { return e.resume(apart) }, want: 126113374384 * time.Nanosecond,
			after: []string{"bora-1-0@h1:running", "bora-1-1@h2:running"},
		},
		{
			// local storage, both on h1: one after the other, as shared:
			// 241.519433962 s
			name: "suspend on one host, local storage", edit: func(c *Config) { c.Overheads.Storage = overhead.StorageLocal },
			setup: func(e *env) { e.settle(e.start(two)) },
			op:    func(e *env) op { return e.suspend(two) }, want: 241519433962 * time.Nanosecond,
			after: []string{"bora-1-0@h1:saved", "bora-1-1@h1:saved"},
		},
		{
			// t_copy(1024) = 160.2 s
			name: "migrate one 1024 MB image", setup: func(e *env) { e.settle(e.start(one)); e.settle(e.suspend(one)) },
			op: func(e *env) op { return e.migrate(onH2(one), []string{"h1"}) }, want: 160200 * time.Millisecond,
			after: []string{"bora-1-0@h2:saved"},
		},
		{
			// only the 1024 MB image changes host (its source is h1): 160.2 s;
			// the 512 MB one's source is already its destination
			name: "migrate counts only images that move",
			setup: func(e *env) {
				e.settle(e.start(two))
				e.settle(e.suspend(two))
			},
			op:   func(e *env) op { return e.migrate(onH2(two), []string{"h1", "h2"}) },
			want: 160200 * time.Millisecond, after: []string{"bora-1-0@h2:saved", "bora-1-1@h2:saved"},
		},
		{
			// 160.2 + 80.1 = 240.3 s, the VMs running all along
			name: "live-migrate 1024 and 512 MB", setup: func(e *env) { e.settle(e.start(two)) },
			op: func(e *env) op { return e.live(two, hosts(2, "h3")) }, want: 240300 * time.Millisecond,
			after: []string{"bora-1-0@h3:running", "bora-1-1@h3:running"},
		},
		{
			// 2 * t_stop = 2 * 2 s = 4 s
			name: "stop two VMs", setup: func(e *env) { e.settle(e.start(two)) },
			op: func(e *env) op { return e.stop(two) }, want: 4 * time.Second,
			after: []string{"bora-1-0@h1:stopped", "bora-1-1@h1:stopped"},
		},
		{
			// a saved VM has no process to stop: 1 * 2 s for the running one
			name: "stop a running and a saved VM",
			setup: func(e *env) {
				e.settle(e.start(two))
				e.settle(e.suspend(two[1:]))
			},
			op: func(e *env) op { return e.stop(two) }, want: 2 * time.Second,
			after: []string{"bora-1-0@h1:stopped", "bora-1-1@h1:stopped"},
		},
		{
			// min(grace 10 s, reserve 30 s) = 10 s
			name: "shutdown within grace", setup: func(e *env) { e.settle(e.start(two)) },
			op: func(e *env) op { return e.shutdown(two, 10*time.Second) }, want: 10 * time.Second,
			after: []string{"bora-1-0@h1:stopped", "bora-1-1@h1:stopped"},
		},
		{
			// min(grace 60 s, reserve 30 s) = 30 s
			name: "shutdown capped by the reserve", setup: func(e *env) { e.settle(e.start(one)) },
			op: func(e *env) op { return e.shutdown(one, time.Minute) }, want: 30 * time.Second,
			after: []string{"bora-1-0@h1:stopped"},
		},
		{
			name: "cleanup is instant", setup: func(e *env) { e.settle(e.start(two)) },
			op: func(e *env) op { return e.cleanup(two) }, want: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.edit)
			if c.setup != nil {
				c.setup(e)
			}
			if err := e.timed(c.want, c.op(e)); err != nil {
				t.Fatalf("op: %v", err)
			}
			if got := e.list(); !slices.Equal(got, c.after) {
				t.Errorf("after: %v, want %v", got, c.after)
			}
		})
	}
}

// Every operation repeated on VMs already in its target state returns at
// once and changes nothing.
func TestIdempotency(t *testing.T) {
	one := vms(1, "h1", 1024)
	oneOnH2 := vms(1, "h2", 1024)
	cases := []struct {
		name  string
		setup func(e *env)
		op    func(e *env) op
		after []string
	}{
		{"start of a running VM", func(e *env) { e.settle(e.start(one)) },
			func(e *env) op { return e.start(one) }, []string{"bora-1-0@h1:running"}},
		{"suspend of a saved VM", func(e *env) { e.settle(e.start(one)); e.settle(e.suspend(one)) },
			func(e *env) op { return e.suspend(one) }, []string{"bora-1-0@h1:saved"}},
		{"resume of a VM running there", func(e *env) { e.settle(e.start(one)) },
			func(e *env) op { return e.resume(one) }, []string{"bora-1-0@h1:running"}},
		{"migrate of an image already there",
			func(e *env) {
				e.settle(e.start(one))
				e.settle(e.suspend(one))
				e.settle(e.migrate(oneOnH2, []string{"h1"}))
			},
			func(e *env) op { return e.migrate(oneOnH2, []string{"h1"}) }, []string{"bora-1-0@h2:saved"}},
		{"migrate of a VM already resumed there",
			func(e *env) {
				e.settle(e.start(one))
				e.settle(e.suspend(one))
				e.settle(e.migrate(oneOnH2, []string{"h1"}))
				e.settle(e.resume(oneOnH2))
			},
			func(e *env) op { return e.migrate(oneOnH2, []string{"h1"}) }, []string{"bora-1-0@h2:running"}},
		{"live-migrate of a VM already there",
			func(e *env) { e.settle(e.start(one)); e.settle(e.live(one, []string{"h2"})) },
			func(e *env) op { return e.live(one, []string{"h2"}) }, []string{"bora-1-0@h2:running"}},
		{"stop of an absent VM", nil, func(e *env) op { return e.stop(one) }, nil},
		{"stop of a stopped VM", func(e *env) { e.settle(e.start(one)); e.settle(e.stop(one)) },
			func(e *env) op { return e.stop(one) }, []string{"bora-1-0@h1:stopped"}},
		{"shutdown of an absent VM", nil, func(e *env) op { return e.shutdown(one, time.Minute) }, nil},
		{"shutdown of a stopped VM", func(e *env) { e.settle(e.start(one)); e.settle(e.shutdown(one, time.Minute)) },
			func(e *env) op { return e.shutdown(one, time.Minute) }, []string{"bora-1-0@h1:stopped"}},
		{"cleanup of an absent VM", nil, func(e *env) op { return e.cleanup(one) }, nil},
		{"cleanup twice", func(e *env) { e.settle(e.start(one)); e.settle(e.cleanup(one)) },
			func(e *env) op { return e.cleanup(one) }, nil},
		{"no VMs at all", nil, func(e *env) op { return e.suspend(nil) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if c.setup != nil {
				c.setup(e)
			}
			if err := e.timed(0, c.op(e)); err != nil {
				t.Fatalf("op: %v", err)
			}
			if got := e.list(); !slices.Equal(got, c.after) {
				t.Errorf("after: %v, want %v", got, c.after)
			}
		})
	}
}

func TestOperationErrors(t *testing.T) {
	one := vms(1, "h1", 1024)
	nowhere := vms(1, "h9", 1024)
	cases := []struct {
		name  string
		setup func(e *env)
		op    func(e *env) op
		want  error
	}{
		{"resume of a VM never started", nil, func(e *env) op { return e.resume(one) }, drivers.ErrNotSaved},
		{"resume of a running VM never saved, elsewhere", func(e *env) { e.settle(e.start(one)) },
			func(e *env) op { return e.resume(vms(1, "h2", 1024)) }, drivers.ErrNotSaved},
		{"resume of a stopped VM", func(e *env) { e.settle(e.start(one)); e.settle(e.stop(one)) },
			func(e *env) op { return e.resume(one) }, drivers.ErrNotSaved},
		{"migrate of a VM never saved", func(e *env) { e.settle(e.start(one)) },
			func(e *env) op { return e.migrate(vms(1, "h2", 1024), []string{"h1"}) }, drivers.ErrNotSaved},
		{"start on an unknown host", nil, func(e *env) op { return e.start(nowhere) }, drivers.ErrUnknownHost},
		{"suspend on an unknown host", nil, func(e *env) op { return e.suspend(nowhere) }, drivers.ErrUnknownHost},
		{"resume on an unknown host", nil, func(e *env) op { return e.resume(nowhere) }, drivers.ErrUnknownHost},
		{"migrate from an unknown host", nil, func(e *env) op { return e.migrate(one, []string{"h9"}) }, drivers.ErrUnknownHost},
		{"live-migrate to an unknown host", nil, func(e *env) op { return e.live(one, []string{"h9"}) }, drivers.ErrUnknownHost},
		{"stop on an unknown host", nil, func(e *env) op { return e.stop(nowhere) }, drivers.ErrUnknownHost},
		{"cleanup on an unknown host", nil, func(e *env) op { return e.cleanup(nowhere) }, drivers.ErrUnknownHost},
		{"suspend of an absent VM", nil, func(e *env) op { return e.suspend(one) }, ErrNoSuchVM},
		{"suspend on the wrong host", func(e *env) { e.settle(e.start(one)) },
			func(e *env) op { return e.suspend(vms(1, "h2", 1024)) }, ErrNoSuchVM},
		{"suspend of a stopped VM", func(e *env) { e.settle(e.start(one)); e.settle(e.stop(one)) },
			func(e *env) op { return e.suspend(one) }, ErrWrongState},
		{"live-migrate of a saved VM", func(e *env) { e.settle(e.start(one)); e.settle(e.suspend(one)) },
			func(e *env) op { return e.live(one, []string{"h2"}) }, ErrWrongState},
		{"migrate with too few sources", nil, func(e *env) op { return e.migrate(one, nil) }, ErrInvalid},
		{"live-migrate with too many destinations", nil,
			func(e *env) op { return e.live(one, []string{"h2", "h3"}) }, ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if c.setup != nil {
				c.setup(e)
			}
			before := e.list()
			err := e.timed(0, c.op(e))
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if got := e.list(); !slices.Equal(got, before) {
				t.Errorf("a refused operation changed %v into %v", before, got)
			}
		})
	}
}

// A cancelled context stops the operation in the middle; nothing of it
// happens, and it can be done again.
func TestCancelMidOperation(t *testing.T) {
	one := vms(1, "h1", 1024)
	cases := []struct {
		name  string
		setup func(e *env)
		op    func(e *env) op
		want  time.Duration // of the retry
		after []string      // after the cancelled attempt
	}{
		{"start", nil, func(e *env) op { return e.start(one) }, 45 * time.Second, nil},
		// 0.005 + 161.006289308 s
		{"suspend", func(e *env) { e.settle(e.start(one)) }, func(e *env) op { return e.suspend(one) },
			161011289308 * time.Nanosecond, []string{"bora-1-0@h1:running"}},
		// 160.2 s
		{"live-migrate", func(e *env) { e.settle(e.start(one)) }, func(e *env) op { return e.live(one, []string{"h2"}) },
			160200 * time.Millisecond, []string{"bora-1-0@h1:running"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if c.setup != nil {
				c.setup(e)
			}
			ctx, cancel := context.WithCancel(context.Background())
			before := e.sim.Waiting()
			ch := launch(ctx, c.op(e))
			waitFor(t, "the operation to sleep", func() bool { return e.sim.Waiting() > before })
			e.sim.Set(e.sim.Now().Add(time.Second)) // partway
			cancel()
			if err := result(t, ch); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if got := e.list(); !slices.Equal(got, c.after) {
				t.Errorf("after cancel: %v, want %v", got, c.after)
			}
			// The abandoned timer fires first; the retry's is the next one.
			next, _ := e.sim.NextTimer()
			e.sim.Set(next)
			if err := e.timed(c.want, c.op(e)); err != nil {
				t.Fatalf("retry: %v", err)
			}
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.d.Start(ctx, vms(1, "h1", 1024)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := e.d.List(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("List err = %v, want context.Canceled", err)
	}
}

// The life of a suspendable lease end to end, on two hosts.
func TestLeaseLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	a := vms(7, "h1", 1024, 1024)
	b := vms(7, "h2", 1024, 1024)
	e.settle(e.start(a))
	e.settle(e.suspend(a))
	e.settle(e.migrate(b, hosts(2, "h1")))
	e.settle(e.resume(b))
	e.settle(e.shutdown(b, time.Minute))
	if got, want := e.list(), []string{"bora-7-0@h2:stopped", "bora-7-1@h2:stopped"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	e.settle(e.cleanup(b))
	if got := e.list(); len(got) != 0 {
		t.Errorf("after cleanup: %v", got)
	}
	// 45 + (0.01 + 2*161.006289308) + 2*160.2 + (2*126.108374384 + 0.01) + 30
	// = 45 + 322.022578616 + 320.4 + 252.226748768 + 30 = 969.649327384 s
	if got, want := e.sim.Now().Sub(t0), 969649327384*time.Nanosecond; got != want {
		t.Errorf("took %s, want %s", got, want)
	}
}

func TestHostsAndForeignVMs(t *testing.T) {
	e := newEnv(t, nil)
	hs, err := e.d.Hosts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []drivers.Host{
		{Name: "h1", CPU: 800, Memory: 16384, Up: true},
		{Name: "h2", CPU: 800, Memory: 16384, Up: true},
		{Name: "h3", CPU: 400, Memory: 8192, Up: true},
	}
	if !slices.Equal(hs, want) {
		t.Errorf("Hosts = %v, want %v", hs, want)
	}
	e.settle(e.start(vms(1, "h1", 512)))
	e.d.AddForeignVM("h2", "web-frontend")
	e.d.AddForeignVM("h2", "bora-1-x")
	e.d.AddForeignVM("h2", "bora-007-0")
	e.d.AddForeignVM("h3", "bora-99-0") // bora's name, unknown lease: reported
	got := e.list()
	if want := []string{"bora-1-0@h1:running", "bora-99-0@h3:running"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

func TestClose(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-e.d.Events(); ok {
		t.Error("events still open after Close")
	}
	if err := e.d.Start(context.Background(), vms(1, "h1", 512)); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if err := e.d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Close while an operation sleeps: the operation returns ErrClosed.
func TestCloseMidOperation(t *testing.T) {
	e := newEnv(t, nil)
	ch := launch(context.Background(), e.start(vms(1, "h1", 512)))
	waitFor(t, "the operation to sleep", func() bool { return e.sim.Waiting() > 0 })
	e.d.Close()
	if err := result(t, ch); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}
