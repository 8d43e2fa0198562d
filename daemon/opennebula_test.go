package daemon

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

// startOpenNebula starts borad with the OpenNebula driver on the oned
// stand-in at url, on the real clock, polling every 20 ms.
func startOpenNebula(t *testing.T, url string) *running {
	t.Helper()
	return start(t, oneConfig(t, url))
}

// oneConfig is the configuration startOpenNebula starts borad with.
func oneConfig(t *testing.T, url string) config.Config {
	t.Helper()
	c := testConfig(t.TempDir(), 0)
	c.Hosts = nil
	c.Daemon.Clock = "real"
	c.Driver.Name = "opennebula"
	c.Driver.OpenNebula.Endpoint = url + "/RPC2"
	c.Driver.OpenNebula.User, c.Driver.OpenNebula.Password = "oneadmin", "opennebula"
	c.Driver.OpenNebula.PollInterval = 20 * time.Millisecond
	if err := c.ValidateDaemon(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOpenNebulaIntake runs borad as OpenNebula's scheduler against the
// oned stand-in: two VMs on HOLD sharing a BORA_LEASE ID become one lease
// of two VMs, deployed and running on OpenNebula's hosts; `lease show`
// names their OpenNebula ids; cancelling terminates them.
func TestOpenNebulaIntake(t *testing.T) {
	one := onetest.New(onetest.Options{Delays: onetest.Delays{Prolog: 5 * time.Millisecond, Boot: 5 * time.Millisecond,
		Save: 5 * time.Millisecond, Restore: 5 * time.Millisecond, Shutdown: 5 * time.Millisecond}})
	srv := httptest.NewServer(one)
	t.Cleanup(srv.Close)
	one.AddHost("one-a", 200, 2048)
	one.AddHost("one-b", 200, 2048)
	one.AddUser("carol", "pw")
	var ids []int
	for i := 0; i < 2; i++ {
		id, err := one.AddVM("carol", "CPU=1\nMEMORY=512\n"+`BORA_LEASE=[ ID="job", START="now", DURATION="02:00:00" ]`, true)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	d := startOpenNebula(t, srv.URL)
	ctx := context.Background()
	var lease api.Lease
	deadline := time.Now().Add(10 * time.Second)
	for {
		ls, err := d.ListLeases(ctx, admin, api.LeaseFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) == 1 && ls[0].State == "running" {
			lease = ls[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leases: %+v", ls)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if lease.VMs != 2 || lease.User != "carol" || lease.Kind != "immediate" {
		t.Fatalf("lease: %+v", lease)
	}
	// The VMs are adopted after the pass that made the lease is committed
	// (sourcecalls.go): until then the lease names its VMs by bora's names.
	for deadline := time.Now().Add(5 * time.Second); ; {
		full, _ := d.GetLease(ctx, admin, lease.ID)
		if strings.Join(full.DriverIDs, ",") == "0,1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("driver ids %v, want the OpenNebula VM ids 0,1", full.DriverIDs)
		}
		time.Sleep(5 * time.Millisecond)
	}
	waitRunning := func(id int) {
		for deadline := time.Now().Add(5 * time.Second); ; {
			if st, lcm, _ := one.State(id); st == oca.Active && lcm == oca.Running {
				return
			}
			if time.Now().After(deadline) {
				st, lcm, _ := one.State(id)
				t.Fatalf("VM %d: state %v lcm %v", id, st, lcm)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, id := range ids {
		waitRunning(id)
		if p := one.Placements(id); len(p) != 1 {
			t.Fatalf("VM %d placed on %v", id, p)
		}
	}
	// A host added to OpenNebula joins the cluster at the next poll.
	one.AddHost("one-c", 200, 2048)
	for deadline := time.Now().Add(5 * time.Second); ; {
		if h, err := d.GetHost(ctx, admin, "one-c"); err == nil && h.CPU == 2 && h.Memory == 2048 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new OpenNebula host never joined")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Its energy is counted from then (117 W, switched on).
	time.Sleep(20 * time.Millisecond)
	if h, err := d.GetHost(ctx, admin, "one-c"); err != nil || h.EnergyKWh <= 0 {
		t.Errorf("the new host's energy: %+v, %v; want counted from when it joined", h, err)
	}
	// bora host disable is OpenNebula's one.host.status disable too.
	if _, err := d.HostAction(ctx, admin, "one-b", "disable"); err != nil {
		t.Fatal(err)
	}
	if trail := strings.Join(one.CallStrings(), "\n"); !strings.Contains(trail, "one.host.status") {
		t.Fatalf("no one.host.status call:\n%s", trail)
	}
	if _, err := d.CancelLease(ctx, admin, lease.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		for deadline := time.Now().Add(5 * time.Second); ; {
			if st, _, _ := one.State(id); st == oca.Done {
				break
			}
			if time.Now().After(deadline) {
				st, lcm, _ := one.State(id)
				t.Fatalf("VM %d after cancel: %v %v", id, st, lcm)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// TestOpenNebulaHostMonitoredLate: borad first sees host one-n just
// created in OpenNebula (INIT), which reports 0 CPU and memory until its
// first monitoring; one-a (1 core) is monitored. Two best-effort leases of
// one 1-core VM for 2 h arrive: one runs on one-a, the other waits for it
// (2 h). one-n is then monitored and reports 4 cores and 4096 MB: at the
// next poll borad plans with that, and the waiting lease runs on one-n at
// once, not in 2 h.
func TestOpenNebulaHostMonitoredLate(t *testing.T) {
	one := onetest.New(onetest.Options{Delays: onetest.Delays{Prolog: 5 * time.Millisecond, Boot: 5 * time.Millisecond,
		Save: 5 * time.Millisecond, Restore: 5 * time.Millisecond, Shutdown: 5 * time.Millisecond}})
	srv := httptest.NewServer(one)
	t.Cleanup(srv.Close)
	one.AddHost("one-a", 100, 1024)
	late := one.AddHostUnmonitored("one-n", 400, 4096)
	one.AddUser("carol", "pw")
	var ids []int
	for i := 0; i < 2; i++ {
		id, err := one.AddVM("carol", fmt.Sprintf("CPU=1\nMEMORY=512\nBORA_LEASE=[ ID=\"job%d\", START=\"best-effort\", DURATION=\"02:00:00\" ]", i), true)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	d := startOpenNebula(t, srv.URL)
	ctx := context.Background()
	// running is how many leases run, and where.
	running := func() (int, []string) {
		ls, err := d.ListLeases(ctx, admin, api.LeaseFilter{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range ls {
			if l.State == "running" {
				n++
			}
		}
		var where []string
		for _, id := range ids {
			where = append(where, one.VMHost(id))
		}
		return n, where
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, _ := running(); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			n, where := running()
			t.Fatalf("%d leases running (VMs on %q), want 1 on one-a", n, where)
		}
	}
	// Not monitored: no capacity, closed, and nothing placed there.
	time.Sleep(100 * time.Millisecond) // five polls
	if h, err := d.GetHost(ctx, admin, "one-n"); err != nil || h.CPU != 0 || h.Up {
		t.Fatalf("one-n before its monitoring: %+v, %v; want 0 cores, down", h, err)
	}
	if n, where := running(); n != 1 {
		t.Fatalf("%d leases running (VMs on %q) before one-n is monitored, want 1", n, where)
	}
	one.MonitorHost(late)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n, where := running()
		h, _ := d.GetHost(ctx, admin, "one-n")
		on := strings.Join(where, " ")
		if n == 2 && h.CPU == 4 && h.Memory == 4096 && h.Up && (on == "one-a one-n" || on == "one-n one-a") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one-n was monitored: %d leases running (VMs on %q), one-n %+v; want 2, one VM on one-n of 4 cores and 4096 MB",
				n, where, h)
		}
	}
	// OFFLINE, OpenNebula reports 0 again: one-n is down but keeps its
	// 4 cores (0 is no size).
	ctl := oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", "opennebula", srv.URL+"/RPC2")))
	if err := ctl.Host(late).StatusContext(ctx, oca.HostStatusOffline); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		h, _ := d.GetHost(ctx, admin, "one-n")
		if !h.Up {
			if h.CPU != 4 || h.Memory != 4096 {
				t.Fatalf("one-n OFFLINE: %+v, want its 4 cores and 4096 MB kept", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("one-n OFFLINE still up: %+v", h)
		}
	}
}
