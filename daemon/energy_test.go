package daemon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
)

// energyConfig is testConfig with the fake power driver (booting in 2
// minutes, shutting down in 1) and GESP with a grace of 5 minutes and a
// tick every 5 minutes.
func energyConfig(dir string, n int) config.Config {
	c := testConfig(dir, n)
	c.Power.Driver, c.Power.Boot, c.Power.Shutdown = "fake", 2*time.Minute, time.Minute
	c.Energy.Policy, c.Energy.Grace, c.Energy.Tick = "gesp", 5*time.Minute, 5*time.Minute
	return c
}

// waitHosts polls the hosts until cond holds.
func waitHosts(t *testing.T, d *running, what string, cond func([]api.Host) bool) []api.Host {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		hs, err := d.ListHosts(context.Background(), admin)
		if err != nil {
			t.Fatal(err)
		}
		if cond(hs) {
			return hs
		}
		if time.Now().After(deadline) {
			t.Fatalf("hosts never %s: %+v", what, hs)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func allPower(state string) func([]api.Host) bool {
	return func(hs []api.Host) bool {
		for _, h := range hs {
			if h.Power != state {
				return false
			}
		}
		return true
	}
}

// TestEnergyIdleOffAndBootInTime: two idle hosts are switched off by the
// first tick after the grace (at 00:05, off at 00:06); an advance
// reservation for both an hour later has them switched on to boot two
// minutes before it, and it starts on time; once it is over they go off
// again. Energy is counted, and survives a restart.
func TestEnergyIdleOffAndBootInTime(t *testing.T) {
	dir := t.TempDir()
	c := energyConfig(dir, 2)
	d := start(t, c)
	ctx := context.Background()
	ar, at := reserveBoth(t, d)
	l := waitFor(t, d, ar.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if !l.Start.Equal(at) {
		t.Errorf("the reservation started at %v, want %v", l.Start, at)
	}
	hs := waitHosts(t, d, "off again", allPower("off"))
	// Each host: on 5 min, shutting down 1, booting 2, on 30 min with the
	// lease and at least the grace after: >= 43 min at 117 W.
	for _, h := range hs {
		if min := 117 * 43.0 / 60 / 1000; h.EnergyKWh < min {
			t.Errorf("%s: %.4f kWh, want at least %.4f", h.Name, h.EnergyKWh, min)
		}
	}
	st, err := d.Stats(ctx, admin)
	if err != nil || st.HostsOn != 0 || st.EnergyKWh <= 0 {
		t.Errorf("stats: %+v, %v", st, err)
	}
	if off, on, kwh := metric(t, d, "bora_hosts/off"), metric(t, d, "bora_hosts/on"), metric(t, d, "bora_energy_kwh_total"); off != 2 || on != 0 || kwh <= 0 {
		t.Errorf("gauges: hosts off %v, on %v, energy %v", off, on, kwh)
	}
	before := st.EnergyKWh
	d.stop(t)
	d2 := start(t, c)
	st2, err := d2.Stats(ctx, admin)
	if err != nil || st2.EnergyKWh < before || st2.HostsOn != 0 {
		t.Errorf("after a restart: %+v (energy before %.4f), %v", st2, before, err)
	}
	if hs, _ := d2.ListHosts(ctx, admin); !allPower("off")(hs) {
		t.Errorf("after a restart: %+v", hs)
	}
}

// TestHostOnOff: an admin switches a host off and on through the power
// driver; a host with a lease cannot be switched off; without a power
// driver neither works.
func TestHostOnOff(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Power.Driver = "fake"
	d := start(t, c)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 1, Duration: "10h", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	// The lease is placed by a pass of the loop: wait for its host (h0,
	// the first that fits) before switching hosts off.
	for deadline := time.Now().Add(20 * time.Second); len(l.Hosts) == 0; time.Sleep(2 * time.Millisecond) {
		if l, err = d.GetLease(ctx, admin, l.ID); err != nil || time.Now().After(deadline) {
			t.Fatalf("lease never placed: %+v, %v", l, err)
		}
	}
	if l.Hosts[0] != "h0" {
		t.Fatalf("lease on %v, want h0", l.Hosts)
	}
	if _, err := d.HostAction(ctx, admin, "h0", "off"); err == nil || !strings.Contains(err.Error(), "reservations") {
		t.Errorf("switching off a busy host: %v", err)
	}
	h, err := d.HostAction(ctx, admin, "h1", "off")
	if err != nil {
		t.Fatal(err)
	}
	if h.Power != "shutting-down" && h.Power != "off" {
		t.Errorf("h1 after off: %s", h.Power)
	}
	waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[1].Power == "off" })
	if h, err = d.HostAction(ctx, admin, "h1", "on"); err != nil || (h.Power != "booting" && h.Power != "on") {
		t.Fatalf("h1 after on: %+v, %v", h, err)
	}
	waitHosts(t, d, "h1 on", func(hs []api.Host) bool { return hs[1].Power == "on" && hs[1].Enabled })
	d.stop(t)

	c2 := testConfig(t.TempDir(), 1)
	d2 := start(t, c2)
	if _, err := d2.HostAction(ctx, admin, "h0", "off"); err == nil || !strings.Contains(err.Error(), "power.driver: none") {
		t.Errorf("off without a power driver: %v", err)
	}
}

// reserveBoth waits for both (idle) hosts to be off and books an advance
// reservation of both an hour ahead, returning it and its start.
func reserveBoth(t *testing.T, d *running) (api.Lease, time.Time) {
	t.Helper()
	waitHosts(t, d, "off", allPower("off"))
	at := d.Now().Add(time.Hour).Truncate(time.Second)
	ar, err := d.CreateLease(context.Background(), admin, api.LeaseRequest{Name: "ar", VMs: 2, Duration: "30m",
		Start: at.Format(time.RFC3339), Class: "non-preemptable"})
	if err != nil || ar.State != "scheduled" {
		t.Fatalf("advance reservation: %+v, %v", ar, err)
	}
	return ar, at
}

// metric returns the value of the Prometheus gauge or counter name (with
// label values joined by "/"); 0 if there is none.
func metric(t *testing.T, d *running, name string) float64 {
	t.Helper()
	mfs, err := d.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			n := mf.GetName()
			for _, l := range m.GetLabel() {
				n += "/" + l.GetValue()
			}
			if n == name && m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			if n == name {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// events returns lease l's history events of reason r.
func events(l api.Lease, r string) []api.Event {
	var out []api.Event
	for _, e := range l.History {
		if e.Reason == r {
			out = append(out, e)
		}
	}
	return out
}

// powerConfig is testConfig with the fake power driver (2 minutes to
// boot, 1 to shut down), no energy policy, and faults.
func powerConfig(dir string, n int, faults ...config.PowerFault) config.Config {
	c := testConfig(dir, n)
	c.Power.Driver, c.Power.Boot, c.Power.Shutdown = "fake", 2*time.Minute, time.Minute
	c.Power.Faults = faults
	return c
}

// offThenQueue switches h1 off, waits for it, and submits a best-effort
// lease of two VMs, which needs both hosts and waits.
func offThenQueue(t *testing.T, d *running) api.Lease {
	t.Helper()
	ctx := context.Background()
	if _, err := d.HostAction(ctx, admin, "h1", "off"); err != nil {
		t.Fatal(err)
	}
	waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[1].Power == "off" })
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "both", VMs: 2, Duration: "30m", Origin: "external"})
	if err != nil || l.State != "queued" {
		t.Fatalf("lease needing both hosts: %+v, %v", l, err)
	}
	return l
}

// TestEnergySlowBoot: h1's boot takes three times the two minutes
// planned. The lease waiting for both hosts is planned for the end of the
// boot; when that time comes and h1 is still booting, the lease is moved
// (host-boot-late) again and again, and starts when h1 reports on: four
// minutes after the first delay, six after the boot began.
func TestEnergySlowBoot(t *testing.T) {
	c := powerConfig(t.TempDir(), 2, config.PowerFault{Op: "on", Host: "h1", Slow: 3})
	d := start(t, c)
	l := offThenQueue(t, d)
	if _, err := d.HostAction(context.Background(), admin, "h1", "on"); err != nil {
		t.Fatal(err)
	}
	l = waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	late := events(l, "host-boot-late")
	if len(late) == 0 || l.Start == nil {
		t.Fatalf("lease %s: no host-boot-late event or no start", states(l))
	}
	if got := l.Start.Sub(late[0].At); got != 4*time.Minute {
		t.Errorf("started %s after the first delay, want 4m (boot planned 2m, took 6m); history %s", got, states(l))
	}
	// Moved every 30 s (a quarter of the boot time) from 2 to 6 minutes.
	if len(late) != 8 {
		t.Errorf("%d host-boot-late events, want 8: %s", len(late), states(l))
	}
	if n := metric(t, d, "bora_boots_late_total"); n != 1 {
		t.Errorf("bora_boots_late_total %v, want 1", n)
	}
}

// TestEnergyBootFails: h1 fails to boot once (the BMC does not answer):
// it is off again, the waiting lease is planned again and does not
// start. Switched on a second time, h1 boots and the lease starts two
// minutes later.
func TestEnergyBootFails(t *testing.T) {
	c := powerConfig(t.TempDir(), 2, config.PowerFault{Op: "on", Host: "h1", Fail: "BMC unreachable", Times: 1})
	d := start(t, c)
	ctx := context.Background()
	l := offThenQueue(t, d)
	if _, err := d.HostAction(ctx, admin, "h1", "on"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); metric(t, d, "bora_power_failures_total/on") != 1; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failed boot was never counted")
		}
	}
	hs := waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[1].Power == "off" })
	if e := hs[1].PowerError; !strings.Contains(e, "switching on failed") || !strings.Contains(e, "BMC unreachable") {
		t.Errorf("h1's power error %q, want the failed boot", e)
	}
	l, err := d.GetLease(ctx, admin, l.ID)
	if err != nil || l.State != "queued" || len(events(l, "host-boot-failed")) == 0 {
		t.Fatalf("after the failed boot: %s, %v; want queued, moved", states(l), err)
	}
	again := d.Now()
	if _, err := d.HostAction(ctx, admin, "h1", "on"); err != nil {
		t.Fatal(err)
	}
	l = waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" })
	if l.Start == nil || l.Start.Before(again.Add(2*time.Minute)) {
		t.Errorf("lease started at %v, want at least 2m after the second switch-on at %v", l.Start, again)
	}
	if h, err := d.GetHost(ctx, admin, "h1"); err != nil || h.PowerError != "" {
		t.Errorf("h1 after a boot that worked: %+v, %v; want no power error", h, err)
	}
}

// TestEnergyBootFailsReservation: under GESP both idle hosts go off; an
// advance reservation for both has them booted in time, but h1 fails to
// boot: the reservation cannot run and fails, naming the host.
func TestEnergyBootFailsReservation(t *testing.T) {
	c := energyConfig(t.TempDir(), 2)
	c.Power.Faults = []config.PowerFault{{Op: "on", Host: "h1", Fail: "BMC unreachable"}}
	d := start(t, c)
	ar, _ := reserveBoth(t, d)
	l := waitFor(t, d, ar.ID, "failed", func(l api.Lease) bool { return l.State == "failed" })
	last := l.History[len(l.History)-1]
	if !strings.Contains(last.Detail, "h1 failed to boot") || !strings.Contains(last.Detail, "BMC unreachable") {
		t.Errorf("failure detail %q, want the host and the driver's error", last.Detail)
	}
}

// TestEnergyOffFails: under GESP (grace 5 minutes, tick 5 minutes) both
// idle hosts are switched off at 00:05. h1's switch-off fails once
// (reported at 00:06, when the shutdown would have ended): it is on again
// and left alone for the grace period, to 00:11, so the tick at 00:10
// passes it by and the one at 00:15 switches it off, off at 00:16. h0
// drew 117 W for 6 minutes, h1 for 16.
func TestEnergyOffFails(t *testing.T) {
	c := energyConfig(t.TempDir(), 2)
	c.Power.Faults = []config.PowerFault{{Op: "off", Host: "h1", Fail: "ssh: connection refused", Times: 1}}
	d := start(t, c)
	hs := waitHosts(t, d, "off", allPower("off"))
	if n := metric(t, d, "bora_power_failures_total/off"); n != 1 {
		t.Errorf("bora_power_failures_total{op=off} %v, want 1", n)
	}
	if hs[1].PowerError != "" {
		t.Errorf("h1 off, still showing %q", hs[1].PowerError)
	}
	want := []float64{117 * 6.0 / 60 / 1000, 117 * 16.0 / 60 / 1000}
	for i, h := range hs {
		if math.Abs(h.EnergyKWh-want[i]) > 1e-9 {
			t.Errorf("%s: %.6f kWh, want %.6f", h.Name, h.EnergyKWh, want[i])
		}
	}
}

// TestEnergyIdleSurvivesRestart: with a grace too long to matter, h1 is
// idle from the start and h0 from the end of a 20-minute lease; the
// controller of a restarted daemon counts their idle time from there,
// not from the restart.
func TestEnergyIdleSurvivesRestart(t *testing.T) {
	c := energyConfig(t.TempDir(), 2)
	c.Energy.Grace = 1000 * time.Hour
	d := start(t, c)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "short", VMs: 1, Duration: "20m", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	l = waitFor(t, d, l.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	idle := func(d *running) []time.Time {
		v, err := d.call(ctx, func(*tx) (any, error) {
			return []time.Time{d.power.ctl.IdleSince(0), d.power.ctl.IdleSince(1)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v.([]time.Time)
	}
	before := idle(d)
	if !before[1].Equal(simStart) || !before[0].After(simStart.Add(20*time.Minute-time.Nanosecond)) || before[0].After(l.History[len(l.History)-1].At) {
		t.Fatalf("idle since %v; want h0 from the lease's end (at least 20m in, by %v), h1 from %v", before, l.History[len(l.History)-1].At, simStart)
	}
	d.stop(t)
	d2 := start(t, c)
	after := idle(d2)
	if !after[0].Equal(before[0]) || !after[1].Equal(before[1]) {
		t.Errorf("after a restart at %v idle since %v, want %v", d2.Now(), after, before)
	}
}

// TestAwaitBoots: the executor's wait for booting hosts returns at once
// for hosts not booting, when the boot is over, with the boot's error
// when it failed, and with the context's when it ends first.
func TestAwaitBoots(t *testing.T) {
	p := &powerMgr{gates: map[string]*gate{}}
	ctx := context.Background()
	if err := p.awaitBoots(ctx, []string{"h0", "h1"}); err != nil {
		t.Fatalf("no host booting: %v", err)
	}
	p.openGate("h1")
	done := make(chan error, 1)
	go func() { done <- p.awaitBoots(ctx, []string{"h0", "h1"}) }()
	select {
	case err := <-done:
		t.Fatalf("returned while h1 boots: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	p.closeGate("h1", nil)
	if err := <-done; err != nil {
		t.Fatalf("after the boot: %v", err)
	}
	p.openGate("h1")
	go func() { done <- p.awaitBoots(ctx, []string{"h1"}) }()
	time.Sleep(20 * time.Millisecond) // waiting
	p.closeGate("h1", errors.New("h1 failed to boot"))
	if err := <-done; err == nil || err.Error() != "h1 failed to boot" {
		t.Fatalf("after a failed boot: %v", err)
	}
	p.openGate("h0")
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := p.awaitBoots(short, []string{"h0"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with the context over: %v", err)
	}
}

// TestEnergyPEMPConsolidates: PEMP in borad over two hosts of two cores.
// External leases A (10 h) and B (1 h, migratable) run on h0 and h1, one
// VM of one core each. A local reservation of one VM arrives: nothing
// waits (V = 0, LR) and the hosts on are little used (C = (0.5*10 h +
// 0.5*1 h) / (2*10 h) = 0.275: L 0.9, M 0.1), so f = (2*0.9 + 1.5*0.1) /
// 1 = 1.95 and PEMP consolidates round(1*(1.95-1)) = 1 host (local need
// 1 <= 2 on - 1). h0 is kept for the reservation (lowest ID it could
// take); h1, with B, is emptied: B migrates to h0, into the core A leaves
// free, and h1 is switched off through the fake power driver.
func TestEnergyPEMPConsolidates(t *testing.T) {
	c := energyConfig(t.TempDir(), 2)
	for i := range c.Hosts {
		c.Hosts[i].CPU, c.Hosts[i].Memory = 2, 2048
	}
	c.Energy.Policy = "pemp"
	d := start(t, c)
	ctx := context.Background()
	submit := func(name, dur, class string, on string) api.Lease {
		t.Helper()
		other := map[string]string{"h0": "h1", "h1": "h0"}[on]
		if _, err := d.HostAction(ctx, admin, other, "disable"); err != nil {
			t.Fatal(err)
		}
		l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: name, VMs: 1, Duration: dur, Class: class, Origin: "external"})
		if err != nil {
			t.Fatal(err)
		}
		l = waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" })
		if _, err := d.HostAction(ctx, admin, other, "enable"); err != nil {
			t.Fatal(err)
		}
		if strings.Join(l.Hosts, ",") != on {
			t.Fatalf("%s runs on %v, want %s", name, l.Hosts, on)
		}
		return l
	}
	a := submit("A", "10h", "suspendable", "h0")
	b := submit("B", "1h", "migratable", "h1")
	at := d.Now().Add(2 * time.Hour).Truncate(time.Second)
	ar, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "local", VMs: 1, Duration: "30m", Start: at.Format(time.RFC3339)})
	if err != nil || ar.State != "scheduled" {
		t.Fatalf("local reservation: %+v, %v", ar, err)
	}
	b = waitFor(t, d, b.ID, "migrated to h0", func(l api.Lease) bool {
		return l.State == "running" && strings.Join(l.Hosts, ",") == "h0" && l.Migrations == 1
	})
	if last := events(b, "preempted"); len(last) == 0 || !strings.Contains(last[len(last)-1].Detail, "consolidation of host 1") {
		t.Errorf("B's history does not name the consolidation: %s", states(b))
	}
	hs := waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[0].Power == "on" && hs[1].Power == "off" })
	if got, want := fmt.Sprint(hs[0].Leases), fmt.Sprint([]uint64{a.ID, b.ID}); got != want {
		t.Errorf("h0 holds leases %v, want A (%d) and B (%d)", hs[0].Leases, a.ID, b.ID)
	}
	ar = waitFor(t, d, ar.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if !ar.Start.Equal(at) {
		t.Errorf("the local reservation started at %v, want %v", ar.Start, at)
	}
}

// TestEnergyBusyWatts: hosts draw 100 W idle and 200 W fully busy. A
// lease of one VM of one core (all of h0's CPU) runs 30 minutes on h0;
// h1 stays idle. Over the same time h0 drew 100 W x 30 min = 0.05 kWh
// more than h1.
func TestEnergyBusyWatts(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.Energy.IdleWatts, c.Energy.BusyWatts = 100, 200
	d := start(t, c)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "busy", VMs: 1, Duration: "30m", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	l = waitFor(t, d, l.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if l.End.Sub(*l.Start) != 30*time.Minute || strings.Join(l.Hosts, ",") != "h0" {
		t.Fatalf("lease ran %v on %v, want 30m on h0", l.End.Sub(*l.Start), l.Hosts)
	}
	hs, err := d.ListHosts(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if diff := hs[0].EnergyKWh - hs[1].EnergyKWh; math.Abs(diff-0.05) > 1e-9 {
		t.Errorf("h0 drew %.6f kWh more than h1, want 0.05 (h0 %.6f, h1 %.6f)", diff, hs[0].EnergyKWh, hs[1].EnergyKWh)
	}
}

// TestEnergyAdminOffAfterFailure: h1's first switch-off fails; the host is
// on again, shows the error, and an admin can switch it off again at once
// (the controller's backoff is not the admin's).
func TestEnergyAdminOffAfterFailure(t *testing.T) {
	c := powerConfig(t.TempDir(), 2, config.PowerFault{Op: "off", Host: "h1", Fail: "ssh: connection refused", Times: 1})
	d := start(t, c)
	ctx := context.Background()
	if _, err := d.HostAction(ctx, admin, "h1", "off"); err != nil {
		t.Fatal(err)
	}
	hs := waitHosts(t, d, "h1 on again", func(hs []api.Host) bool { return hs[1].Power == "on" && hs[1].PowerError != "" })
	if !strings.Contains(hs[1].PowerError, "connection refused") {
		t.Errorf("h1's power error %q", hs[1].PowerError)
	}
	if _, err := d.HostAction(ctx, admin, "h1", "off"); err != nil {
		t.Fatalf("switching off again: %v", err)
	}
	hs = waitHosts(t, d, "h1 off", func(hs []api.Host) bool { return hs[1].Power == "off" })
	if hs[1].PowerError != "" {
		t.Errorf("h1 off, still showing %q", hs[1].PowerError)
	}
}

// TestEnergyImmediateWaitsForBoot: under GESP both idle hosts go off; an
// immediate local lease of two VMs has them switched on through the
// power driver (local need 2 - on 0 - booting 0 = 2) and waits for
// their boot (scheduler.immediate_boot_wait, 5 minutes by default):
// accepted at once, it starts two minutes after its submission, when the
// hosts are on (before: rejected, no-capacity).
func TestEnergyImmediateWaitsForBoot(t *testing.T) {
	c := energyConfig(t.TempDir(), 2)
	d := start(t, c)
	waitHosts(t, d, "off", allPower("off"))
	l, err := d.CreateLease(context.Background(), admin, api.LeaseRequest{Name: "now", VMs: 2, Duration: "30m",
		Start: "now", Class: "non-preemptable"})
	if err != nil || l.State != "scheduled" || l.Kind != "immediate" {
		t.Fatalf("immediate lease: %+v, %v; want scheduled", l, err)
	}
	if len(events(l, "waits-for-boot")) != 1 {
		t.Errorf("history %s: want a waits-for-boot event", states(l))
	}
	waitHosts(t, d, "booting or on", func(hs []api.Host) bool {
		for _, h := range hs {
			if h.Power != "booting" && h.Power != "on" {
				return false
			}
		}
		return true
	})
	l = waitFor(t, d, l.ID, "running", func(l api.Lease) bool { return l.State == "running" || l.State == "done" })
	if l.Start == nil || !l.Start.Equal(l.Submitted.Add(2*time.Minute)) {
		t.Errorf("started at %v, want 2m after its submission at %v", l.Start, l.Submitted)
	}
	if len(l.Hosts) != 2 {
		t.Errorf("hosts %v, want both", l.Hosts)
	}
}
