package fake

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/fielderr"
)

// A failing fault takes the operation's time, then fails without effect;
// once its Times are used up the operation succeeds.
func TestFaultFailsOnceThenSucceeds(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Faults = []Fault{{Op: OpStart, Times: 1, Fail: "boot failed: no bootable device"}}
	})
	one := vms(1, "h1", 1024)
	err := e.timed(45*time.Second, e.start(one))
	if !errors.Is(err, ErrInjected) || !strings.Contains(err.Error(), "no bootable device") {
		t.Fatalf("first start: %v, want the injected failure", err)
	}
	if got := e.list(); len(got) != 0 {
		t.Fatalf("a failed start left %v", got)
	}
	if err := e.timed(45*time.Second, e.start(one)); err != nil {
		t.Fatalf("second start: %v", err)
	}
}

func TestFaultSlow(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Faults = []Fault{{Op: OpSuspend, Slow: 3}}
	})
	one := vms(1, "h1", 1024)
	e.settle(e.start(one))
	// 3 * (0.005 + 161.006289308) = 3 * 161.011289308 = 483.033867924 s
	if err := e.timed(483033867924*time.Nanosecond, e.suspend(one)); err != nil {
		t.Fatal(err)
	}
	// Times 0: it fires again. Resume is not slowed: 126.113374384 s.
	if err := e.timed(126113374384*time.Nanosecond, e.resume(one)); err != nil {
		t.Fatal(err)
	}
	if err := e.timed(483033867924*time.Nanosecond, e.suspend(one)); err != nil {
		t.Fatal(err)
	}
}

// A fault fires only on the calls that match its lease and host.
func TestFaultMatching(t *testing.T) {
	fault := []Fault{
		{Op: OpStart, Lease: 2, Fail: "lease 2 cannot boot"},
		{Op: OpMigrate, Host: "h3", Fail: "h3 storage full"},
	}
	cases := []struct {
		name string
		op   func(e *env) op
		fail bool
	}{
		{"start of another lease", func(e *env) op { return e.start(vms(1, "h1", 512)) }, false},
		{"start of lease 2", func(e *env) op { return e.start(vms(2, "h1", 512)) }, true},
		{"migrate to another host", func(e *env) op { return e.migrate(vms(5, "h2", 512), []string{"h1"}) }, false},
		{"migrate to h3", func(e *env) op { return e.migrate(vms(5, "h3", 512), []string{"h1"}) }, true},
		{"migrate from h3", func(e *env) op { return e.migrate(vms(5, "h1", 512), []string{"h3"}) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, func(cfg *Config) { cfg.Faults = fault })
			// lease 5: one 512 MB VM saved on h1 or h3, ready to migrate
			src := "h1"
			if strings.HasSuffix(c.name, "from h3") {
				src = "h3"
			}
			e.settle(e.start(vms(5, src, 512)))
			e.settle(e.suspend(vms(5, src, 512)))
			for range 2 { // Times 0: every matching call
				err := e.settleErr(c.op(e))
				if got := errors.Is(err, ErrInjected); got != c.fail {
					t.Fatalf("err = %v, want failure %v", err, c.fail)
				}
			}
		})
	}
}

// A configured host loss: after 10 min the host goes down, its VMs
// vanish with events, and operations on it fail.
func TestHostLoss(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Faults = []Fault{{Op: OpHostLoss, Host: "h3", After: 10 * time.Minute}}
	})
	e.waitNextTimer(t0.Add(10 * time.Minute)) // armed before the clock moves
	e.settle(e.start(vms(1, "h3", 1024, 512)))
	e.settle(e.start(vms(2, "h1", 1024)))
	e.waitNextTimer(t0.Add(10 * time.Minute))
	e.sim.Set(t0.Add(10*time.Minute - time.Nanosecond))
	e.noEvent()
	e.sim.Set(t0.Add(10 * time.Minute))
	want := []drivers.Event{
		{Kind: drivers.HostDown, Host: "h3", Detail: "injected host loss"},
		{Kind: drivers.VMCrashed, Lease: 1, Index: 0, Host: "h3", Detail: "host h3 lost while running"},
		{Kind: drivers.VMCrashed, Lease: 1, Index: 1, Host: "h3", Detail: "host h3 lost while running"},
	}
	for i, w := range want {
		if got := e.event(); got != w {
			t.Errorf("event %d = %+v, want %+v", i, got, w)
		}
	}
	hs, _ := e.d.Hosts(context.Background())
	if hs[2].Name != "h3" || hs[2].Up || !hs[0].Up {
		t.Errorf("Hosts = %+v, want h3 down only", hs)
	}
	if got, want := e.list(), []string{"bora-2-0@h1:running"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	for name, o := range map[string]op{
		"start":   e.start(vms(3, "h3", 512)),
		"stop":    e.stop(vms(1, "h3", 1024, 512)),
		"cleanup": e.cleanup(vms(1, "h3", 1024, 512)),
		"live":    e.live(vms(2, "h1", 1024), []string{"h3"}),
	} {
		if err := e.timed(0, o); !errors.Is(err, drivers.ErrHostDown) {
			t.Errorf("%s on the lost host: %v, want ErrHostDown", name, err)
		}
	}
}

// A host lost while an operation on it is in progress: the operation
// fails with ErrHostDown and leaves nothing behind.
func TestHostLossMidOperation(t *testing.T) {
	e := newEnv(t, nil)
	ch := launch(context.Background(), e.start(vms(1, "h2", 1024)))
	waitFor(t, "the start to sleep", func() bool { return e.sim.Waiting() > 0 })
	next, _ := e.sim.NextTimer()
	if err := e.d.Inject(Fault{Op: OpHostLoss, Host: "h2"}); err != nil {
		t.Fatal(err)
	}
	if ev := e.event(); ev.Kind != drivers.HostDown || ev.Host != "h2" {
		t.Fatalf("event %+v, want h2 down", ev)
	}
	e.sim.Set(next)
	if err := result(t, ch); !errors.Is(err, drivers.ErrHostDown) {
		t.Fatalf("start: %v, want ErrHostDown", err)
	}
	if got := e.list(); len(got) != 0 {
		t.Errorf("List = %v, want nothing", got)
	}
}

func TestKillVM(t *testing.T) {
	e := newEnv(t, nil)
	two := vms(4, "h2", 1024, 1024)
	e.settle(e.start(two))
	e.d.KillVM(4, 1)
	e.d.KillVM(4, 1) // already dead: nothing
	e.d.KillVM(9, 0) // never existed: nothing
	want := drivers.Event{Kind: drivers.VMCrashed, Lease: 4, Index: 1, Host: "h2", Detail: "killed"}
	if got := e.event(); got != want {
		t.Errorf("event %+v, want %+v", got, want)
	}
	e.noEvent()
	if got, want := e.list(), []string{"bora-4-0@h2:running", "bora-4-1@h2:stopped"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

// A VM killed while its lease is being suspended: the suspension fails
// with ErrChanged and the other VM keeps running.
func TestKillMidSuspend(t *testing.T) {
	e := newEnv(t, nil)
	two := vms(4, "h2", 1024, 1024)
	e.settle(e.start(two))
	ch := launch(context.Background(), e.suspend(two))
	waitFor(t, "the suspend to sleep", func() bool { return e.sim.Waiting() > 0 })
	e.d.KillVM(4, 0)
	e.event()
	next, _ := e.sim.NextTimer()
	e.sim.Set(next)
	if err := result(t, ch); !errors.Is(err, ErrChanged) {
		t.Fatalf("suspend: %v, want ErrChanged", err)
	}
	if got, want := e.list(), []string{"bora-4-0@h2:stopped", "bora-4-1@h2:running"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

func TestInjectValidates(t *testing.T) {
	e := newEnv(t, nil)
	err := e.d.Inject(Fault{Op: "reboot", Fail: "x"})
	var fe *fielderr.Error
	if !errors.As(err, &fe) || fe.Path != "fault.op" {
		t.Fatalf("err = %v, want a field error on fault.op", err)
	}
	if err := e.d.Inject(Fault{Op: OpResume, Fail: "disk gone", Times: 1}); err != nil {
		t.Fatal(err)
	}
}

// The events queue never blocks the driver: thousands of events wait for
// a reader that comes late, and arrive in order.
func TestEventsQueueWithoutBound(t *testing.T) {
	e := newEnv(t, nil)
	const n = 3000
	for i := range n {
		e.d.AddForeignVM("h1", drivers.VM{Lease: uint64(i + 1)}.Name())
	}
	for i := range n {
		e.d.KillVM(uint64(i+1), 0)
	}
	for i := range n {
		if ev := e.event(); ev.Lease != uint64(i+1) || ev.Kind != drivers.VMCrashed {
			t.Fatalf("event %d = %+v", i, ev)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no hosts", func(c *Config) { c.Hosts = nil }, "hosts: at least one host required"},
		{"duplicate host", func(c *Config) { c.Hosts[2].Name = "h1" }, `hosts[2].name: duplicate "h1"`},
		{"unnamed host", func(c *Config) { c.Hosts[1].Name = "" }, "hosts[1].name: required"},
		{"no CPU", func(c *Config) { c.Hosts[0].CPU = 0 }, "hosts[0].cpu: must be positive, got 0"},
		{"negative memory", func(c *Config) { c.Hosts[0].Memory = -1 }, "hosts[0].memory: must be positive, got -1"},
		{"no suspend rate", func(c *Config) { c.Overheads.SuspendRate = 0 }, "overheads.suspend_rate: must be positive, got 0"},
		{"negative boot", func(c *Config) { c.Boot = -time.Second }, "boot: must not be negative, got -1s"},
		{"unknown op", func(c *Config) { c.Faults = []Fault{{Op: "explode", Fail: "x"}} },
			`faults[0].op: unknown op "explode" (want start, suspend, resume, migrate, live-migrate, stop, shutdown, host-loss)`},
		{"unknown fault host", func(c *Config) { c.Faults = []Fault{{Op: OpStart, Host: "h9", Fail: "x"}} },
			`faults[0].host: unknown host "h9"`},
		{"host loss without host", func(c *Config) { c.Faults = []Fault{{Op: OpStart, Fail: "x"}, {Op: OpHostLoss}} },
			"faults[1].host: required for host-loss"},
		{"host loss with a failure", func(c *Config) { c.Faults = []Fault{{Op: OpHostLoss, Host: "h1", Fail: "x"}} },
			"faults[0]: host-loss takes only host and after"},
		{"slow below 1", func(c *Config) { c.Faults = []Fault{{Op: OpSuspend, Slow: 0.5}} },
			"faults[0].slow: must be 0 (off) or at least 1, got 0.5"},
		{"fault doing nothing", func(c *Config) { c.Faults = []Fault{{Op: OpSuspend}} },
			"faults[0]: does nothing: set fail or a slow factor above 1"},
		{"negative times", func(c *Config) { c.Faults = []Fault{{Op: OpSuspend, Fail: "x", Times: -1}} },
			"faults[0].times: must not be negative, got -1"},
		{"after on an operation", func(c *Config) { c.Faults = []Fault{{Op: OpSuspend, Fail: "x", After: time.Second}} },
			"faults[0].after: only for host-loss"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig()
			c.edit(&cfg)
			_, err := New(cfg, newSim(), nil)
			var fe *fielderr.Error
			if !errors.As(err, &fe) || err.Error() != c.want {
				t.Fatalf("err = %v, want field error %q", err, c.want)
			}
		})
	}
}
