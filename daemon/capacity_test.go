package daemon

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/fake"
)

// TestCapacityBreach: lease A's VM (1 core, 1024 MB) runs on h0, a host
// of 1 core and 1024 MB. A VM of 1 core and 512 MB started on h0 behind
// borad's back makes 2 cores and 1536 MB there: the check after the next
// pass logs it at error level and counts one breach, and later passes
// over the same breach do not count it again.
func TestCapacityBreach(t *testing.T) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	hook := test.NewLocal(lg)
	c := testConfig(t.TempDir(), 1)
	c.Daemon.Clock, c.Daemon.Speed = "scaled", 1 // A runs while we look
	d := startLogged(t, c, lg)
	ctx := context.Background()
	a, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 1, Duration: "10h"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, a.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	pollMetric(t, d, "bora_capacity_breaches_total", 0, capacityEvery*3) // none while only A runs
	f := d.drv.(*fake.Driver)
	if err := f.Start(ctx, []drivers.VM{{Lease: 99, Index: 0, Host: "h0", CPU: 100, Memory: 512}}); err != nil {
		t.Fatal(err)
	}
	pollMetric(t, d, "bora_capacity_breaches_total", 1, 5*time.Second)
	pollMetric(t, d, "bora_capacity_breaches_total", 1, capacityEvery*3) // the same breach, counted once
	var logged bool
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.ErrorLevel && strings.Contains(e.Message, "over capacity") && e.Data["host"] == "h0" &&
			e.Data["cpu"] == int64(200) && e.Data["memory"] == int64(1536) {
			logged = true
		}
	}
	if !logged {
		t.Fatalf("no error logged for h0 over capacity: %v", hook.AllEntries())
	}
}

// pollMetric makes d pass (a read) and checks metric name until it is
// want, for up to wait; with want 0 it checks that it stays so for wait.
func pollMetric(t *testing.T, d *running, name string, want float64, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		if _, err := d.Stats(context.Background(), admin); err != nil {
			t.Fatal(err)
		}
		got := metric(t, d, name)
		if got == want && want > 0 {
			return
		}
		if got > want {
			t.Fatalf("%s = %v, want %v", name, got, want)
		}
		if time.Now().After(deadline) {
			if got != want {
				t.Fatalf("%s = %v after %s, want %v", name, got, wait, want)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
