package fake

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/overhead"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// testOverheads are the reference values (s = 6.36 MB/s, r = 8.12 MB/s,
// t_p = 5 ms, t_copy(1024 MB) = 160.2 s) with t_stop = 2 s, a shutdown
// reserve of 30 s and an enactment of 45 s.
func testOverheads() overhead.Params {
	o := overhead.DefaultParams()
	o.Stop = 2 * time.Second
	o.Shutdown = 30 * time.Second
	o.Enactment = 45 * time.Second
	return o
}

func testConfig() Config {
	return Config{
		Hosts: []HostSpec{
			{Name: "h1", CPU: 800, Memory: 16384},
			{Name: "h2", CPU: 800, Memory: 16384},
			{Name: "h3", CPU: 400, Memory: 8192},
		},
		Overheads: testOverheads(),
	}
}

// env is a fake driver on a simulated clock.
type env struct {
	t   *testing.T
	sim *clock.Sim
	d   *Driver
	cfg Config
}

// newEnv builds a driver from testConfig, changed by edit if not nil. The
// driver's invariants are checked and it is closed when the test ends.
func newEnv(t *testing.T, edit func(*Config)) *env {
	t.Helper()
	cfg := testConfig()
	if edit != nil {
		edit(&cfg)
	}
	e := &env{t: t, sim: clock.NewSim(t0), cfg: cfg}
	e.open()
	return e
}

// open (re)creates the driver from e.cfg on e.sim.
func (e *env) open() {
	e.t.Helper()
	d, err := New(e.cfg, e.sim, nil)
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	e.d = d
	e.t.Cleanup(func() {
		if err := d.checkInvariants(); err != nil {
			e.t.Errorf("invariants: %v", err)
		}
		d.Close()
	})
}

// checkInvariants is the consistency check run after every test: the
// bookkeeping of every VM agrees with its state.
func (d *Driver) checkInvariants() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, v := range d.vms {
		h := d.hosts[v.host]
		lease, index, ok := drivers.ParseName(name)
		switch {
		case v.name != name:
			return fmt.Errorf("VM %s filed as %s", v.name, name)
		case h != nil && !h.up:
			return fmt.Errorf("%s on down host %s", name, v.host)
		case (v.state == drivers.Running) == v.since.IsZero():
			return fmt.Errorf("%s is %s with run clock started at %v", name, v.state, v.since)
		case !v.frozen.IsZero():
			return fmt.Errorf("%s still frozen with no operation in flight", name)
		case v.run < 0:
			return fmt.Errorf("%s has run %s", name, v.run)
		case ok != v.bora || ok && (lease != v.lease || index != v.index):
			return fmt.Errorf("%s parsed as lease %d index %d", name, v.lease, v.index)
		}
	}
	return nil
}

// vms builds the VMs of lease on host, one per memory size.
func vms(lease uint64, host string, mems ...int64) []drivers.VM {
	out := make([]drivers.VM, len(mems))
	for i, m := range mems {
		out[i] = drivers.VM{Lease: lease, Index: i, Host: host, CPU: 100, Memory: m}
	}
	return out
}

// hosts lists n copies of host.
func hosts(n int, host string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = host
	}
	return out
}

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

type op func(ctx context.Context) error

// launch runs o in a goroutine.
func launch(ctx context.Context, o op) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- o(ctx) }()
	return ch
}

// result waits (wall time) for an operation to return.
func result(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("operation did not return")
		return nil
	}
}

// timed runs o and checks that it takes exactly want on the clock: it
// waits until o sleeps on the clock, checks the timer is want away, checks
// that o is still waiting 1 ns before, then moves the clock there and
// returns o's result. With want 0, o must return without sleeping. o's
// timer must be the earliest pending one.
func (e *env) timed(want time.Duration, o op) error {
	e.t.Helper()
	start, before := e.sim.Now(), e.sim.Waiting()
	ch := launch(context.Background(), o)
	if want == 0 {
		err := result(e.t, ch)
		if got := e.sim.Waiting(); got != before {
			e.t.Errorf("an instant operation left %d timers, had %d", got, before)
		}
		return err
	}
	waitFor(e.t, "the operation to sleep", func() bool {
		select {
		case err := <-ch:
			e.t.Fatalf("returned at once (err %v), want %s", err, want)
		default:
		}
		return e.sim.Waiting() > before
	})
	next, _ := e.sim.NextTimer()
	if got := next.Sub(start); got != want {
		e.t.Errorf("takes %s, want %s", got, want)
	}
	e.sim.Set(next.Add(-time.Nanosecond))
	select {
	case err := <-ch:
		e.t.Fatalf("returned (err %v) before its time", err)
	case <-time.After(10 * time.Millisecond):
	}
	e.sim.Set(next)
	return result(e.t, ch)
}

// settle runs o to the end, moving the clock to the end of its sleep
// (every operation sleeps at most once), and fails the test on error.
func (e *env) settle(o op) {
	e.t.Helper()
	if err := e.settleErr(o); err != nil {
		e.t.Fatalf("setup: %v", err)
	}
}

// settleErr is settle returning o's error. o's timer must be the
// earliest pending one.
func (e *env) settleErr(o op) error {
	e.t.Helper()
	before := e.sim.Waiting()
	ch := launch(context.Background(), o)
	var err error
	done := false
	waitFor(e.t, "the operation to return or sleep", func() bool {
		select {
		case err = <-ch:
			done = true
			return true
		default:
			return e.sim.Waiting() > before
		}
	})
	if done {
		return err
	}
	next, _ := e.sim.NextTimer()
	e.sim.Set(next)
	return result(e.t, ch)
}

// list is the driver's List as "name@host:state" strings.
func (e *env) list() []string {
	e.t.Helper()
	st, err := e.d.List(context.Background())
	if err != nil {
		e.t.Fatalf("List: %v", err)
	}
	var out []string
	for _, s := range st {
		out = append(out, fmt.Sprintf("bora-%d-%d@%s:%s", s.Lease, s.Index, s.Host, s.State))
	}
	return out
}

// event waits (wall time) for the next event.
func (e *env) event() drivers.Event {
	e.t.Helper()
	select {
	case ev, ok := <-e.d.Events():
		if !ok {
			e.t.Fatal("events closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		e.t.Fatal("no event")
		return drivers.Event{}
	}
}

// noEvent checks that no event comes within a short wall time.
func (e *env) noEvent() {
	e.t.Helper()
	select {
	case ev := <-e.d.Events():
		e.t.Fatalf("unexpected event %+v", ev)
	case <-time.After(20 * time.Millisecond):
	}
}

// waitNextTimer waits until the earliest pending timer is at.
func (e *env) waitNextTimer(at time.Time) {
	e.t.Helper()
	waitFor(e.t, "a timer at "+at.String(), func() bool {
		next, ok := e.sim.NextTimer()
		return ok && next.Equal(at)
	})
}

func newSim() *clock.Sim { return clock.NewSim(t0) }
