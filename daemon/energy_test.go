package daemon

import (
	"context"
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
	waitHosts(t, d, "off", allPower("off"))
	at := d.Now().Add(time.Hour).Truncate(time.Second)
	ar, err := d.CreateLease(ctx, admin, api.LeaseRequest{Name: "ar", VMs: 2, Duration: "30m",
		Start: at.Format(time.RFC3339), Class: "non-preemptable"})
	if err != nil || ar.State != "scheduled" {
		t.Fatalf("advance reservation: %+v, %v", ar, err)
	}
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
	gauges := map[string]float64{}
	mfs, err := d.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, l := range m.GetLabel() {
				name += "/" + l.GetValue()
			}
			gauges[name] = m.GetGauge().GetValue()
		}
	}
	if gauges["bora_hosts/off"] != 2 || gauges["bora_hosts/on"] != 0 || gauges["bora_energy_kwh_total"] <= 0 {
		t.Errorf("gauges: hosts off %v, on %v, energy %v", gauges["bora_hosts/off"], gauges["bora_hosts/on"], gauges["bora_energy_kwh_total"])
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
	if _, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 1, Duration: "10h", Origin: "external"}); err != nil {
		t.Fatal(err)
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
