package daemon

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/fake"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// reviving is the fake driver with one thing it cannot do: bring a lost
// host back. At a time on the daemon's clock it reports host up again
// (a drivers.HostUp event, and Hosts says so from then on).
type reviving struct {
	*fake.Driver
	host string
	out  chan drivers.Event
	mu   sync.Mutex
	back bool
}

func (r *reviving) Events() <-chan drivers.Event { return r.out }

func (r *reviving) Hosts(ctx context.Context) ([]drivers.Host, error) {
	hs, err := r.Driver.Hosts(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range hs {
		if hs[i].Name == r.host && r.back {
			hs[i].Up = true
		}
	}
	return hs, err
}

// startReviving starts a daemon on c whose fake driver brings host back
// up at at.
func startReviving(t *testing.T, c config.Config, host string, at time.Time) *running {
	t.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: c, Log: lg, SimQuiet: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fd := d.drv.(*fake.Driver)
	r := &reviving{Driver: fd, host: host, out: make(chan drivers.Event, 64)}
	fire := d.clk.After(at.Sub(d.clk.Now())) // a timer the simulated clock jumps to
	go func() {
		defer close(r.out)
		in := fd.Events()
		for {
			select {
			case ev, ok := <-in:
				if !ok {
					return
				}
				r.out <- ev
			case <-fire:
				fire = nil
				r.mu.Lock()
				r.back = true
				r.mu.Unlock()
				r.out <- drivers.Event{Kind: drivers.HostUp, Host: host}
			}
		}
	}()
	d.drv = r
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { run.done <- d.Run(ctx) }()
	t.Cleanup(func() { run.stop(t) })
	return run
}

// waitLease is waitFor for a lease the emulation submits: not found
// until it arrives.
func waitLease(t *testing.T, d *running, id uint64, what string, cond func(api.Lease) bool) api.Lease {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := d.GetLease(context.Background(), admin, id)
		if err != nil && !errors.Is(err, api.ErrNotFound) {
			t.Fatal(err)
		}
		if err == nil && cond(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("lease %d never became %s: %+v", id, what, l)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// availabilityConfig is three hosts of one core: h0 of 1024 MB, h1 and
// h2 of 4096 MB; the availability check on at 0.8 (w = 0.5, τ = 24 h);
// and the emulation's workload (times from 00:00):
//
//	1 A  00:00 external, 1 VM of 512 MB, 2 h    on h0 (all idle: the lowest ID)
//	2 C  02:00 external, 1 VM of 2048 MB, 1 h   on h1 (too large for h0)
//	3 B  02:01 external, 2 VMs of 512 MB, 1 h   on h0 and h2 (h1 is full)
//
// h0 is lost at 00:30 (A's VM dies with it) and back at 01:30.
func availabilityConfig(t *testing.T, dir string) config.Config {
	c := testConfig(dir, 3)
	c.Hosts[1].Memory, c.Hosts[2].Memory = 4096, 4096
	c.Admission.Availability.Threshold = 0.8
	c.Driver.Fake.Faults = []config.Fault{{Op: fake.OpHostLoss, Host: "h0", After: 30 * time.Minute}}
	trace := filepath.Join(dir, "trace.yaml")
	if err := os.WriteFile(trace, []byte(`leases:
  - {name: A, arrival: 0, start: now, duration: 2h, vms: 1, cpu: 1, memory: 512, class: suspendable, origin: external}
  - {name: C, arrival: 2h, start: now, duration: 1h, vms: 1, cpu: 1, memory: 2048, class: suspendable, origin: external}
  - {name: B, arrival: 2h1m, start: now, duration: 1h, vms: 2, cpu: 1, memory: 512, class: suspendable, origin: external}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Emulation.Workload = trace
	return c
}

// TestAvailabilityRefusesLeaseOnFailingHost: A ran on h0 from 00:00; h0
// was lost at 00:30 and came back at 01:30. That period of use of h0 had
// T_active = 30 min and T_down = 60 min (the outage that interrupted it
// counts until h0 is back), and it was h0's first (t = 0, g = 1):
//
//	A_recent = 30 / (30 + 60) = 1/3
//	A        = 0.5 * 1 * 1 + 0.5 * 1/3 = 2/3 = 0.667
//
// C, planned on h1 (estimate 1: never used before), is admitted; B, planned on h0 and h2, stays up with 2/3 * 1 = 0.667 <
// 0.8: refused with reason availability. A restart keeps h0's estimate.
func TestAvailabilityRefusesLeaseOnFailingHost(t *testing.T) {
	dir := t.TempDir()
	c := availabilityConfig(t, dir)
	d := startReviving(t, c, "h0", simStart.Add(90*time.Minute))
	a := waitLease(t, d, 1, "failed", func(l api.Lease) bool { return l.State == "failed" })
	if a.Start == nil || !a.Start.Equal(simStart) || len(a.Hosts) != 1 || a.Hosts[0] != "h0" {
		t.Fatalf("A: start %v on %v, want 00:00 on h0", a.Start, a.Hosts)
	}
	cl := waitLease(t, d, 2, "accepted", func(l api.Lease) bool { return l.State != "pending" })
	if cl.State == "rejected" || len(cl.Hosts) != 1 || cl.Hosts[0] != "h1" {
		t.Fatalf("C: %s (%s %s) on %v, want it admitted on h1", cl.State, cl.Reason, cl.Detail, cl.Hosts)
	}
	b := waitLease(t, d, 3, "rejected", func(l api.Lease) bool { return l.State == "rejected" })
	const want = "hosts h0, h2 stay up with probability 0.67, threshold 0.80"
	if b.Reason != string(scheduler.ReasonAvailability) || b.Detail != want {
		t.Fatalf("B: %s %q, want availability %q", b.Reason, b.Detail, want)
	}
	check := func(when string) {
		t.Helper()
		for name, w := range map[string]struct {
			a float64
			n int
		}{"h0": {2.0 / 3, 1}, "h1": {1, 0}, "h2": {1, 0}} {
			h, err := d.GetHost(context.Background(), admin, name)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(h.Availability-w.a) > 1e-9 || h.AvailabilityPeriods != w.n {
				t.Errorf("%s: %s: availability %v over %d periods, want %v over %d", when, name, h.Availability, h.AvailabilityPeriods, w.a, w.n)
			}
		}
	}
	// A dry run of the same request says the same, and creates nothing.
	p, err := d.DryRunLease(context.Background(), admin, api.LeaseRequest{VMs: 2, CPU: 1, Memory: 512, Duration: "1h",
		Start: "now", Origin: "external"})
	if err != nil || p.State != "rejected" || p.Reason != string(scheduler.ReasonAvailability) || p.Detail != want {
		t.Errorf("dry run: %+v %v, want rejected: availability %q", p, err, want)
	}
	check("before the restart")
	d.stop(t)

	c.Driver.Fake.Faults = nil
	d = start(t, c)
	check("after the restart")
}

// TestAvailabilityDamagedRecord: a damaged availability record does not
// stop the daemon: it starts with fresh estimates (1 everywhere) and
// writes them again.
func TestAvailabilityDamagedRecord(t *testing.T) {
	dir := t.TempDir()
	c := testConfig(dir, 2)
	d := start(t, c)
	if _, err := d.GetHost(context.Background(), admin, "h0"); err != nil {
		t.Fatal(err)
	}
	d.stop(t)
	st, err := store.Open(c.Daemon.Store, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// An estimate of 7 is no probability: availability.Tracker.Restore refuses it.
	if err := st.Commit(store.Batch{Meta: map[string][]byte{metaAvailability: []byte(`{"h0": {"a": 7}}`)}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	d = start(t, c)
	h, err := d.GetHost(context.Background(), admin, "h0")
	if err != nil {
		t.Fatal(err)
	}
	if h.Availability != 1 || h.AvailabilityPeriods != 0 {
		t.Errorf("h0 after a damaged record: %v over %d periods, want 1 over 0", h.Availability, h.AvailabilityPeriods)
	}
}
