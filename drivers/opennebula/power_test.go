package opennebula

import (
	"context"
	"strings"
	"testing"

	"github.com/bora-sched/bora/drivers"
)

func TestHostsAndPower(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	p := d.Power()
	hosts, err := d.Hosts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 800 hundredths = 8 cores; 16384 MB (16777216 KB in HOST_SHARE).
	want := []drivers.Host{{Name: "node1", CPU: 800, Memory: 16384, Up: true}, {Name: "node2", CPU: 800, Memory: 16384, Up: true}}
	if len(hosts) != 2 || hosts[0] != want[0] || hosts[1] != want[1] {
		t.Errorf("Hosts = %+v, want %+v", hosts, want)
	}
	e.calls()

	if err := p.PowerOff(context.Background(), "node2"); err != nil {
		t.Fatal(err)
	}
	if err := p.PowerOff(context.Background(), "node2"); err != nil { // already off
		t.Fatal(err)
	}
	e.wantCalls("one.host.status(1, 2)")
	if hosts, _ = d.Hosts(context.Background()); hosts[1].Up {
		t.Errorf("node2 up after PowerOff: %+v", hosts[1])
	}
	// oned refuses to deploy on an OFFLINE host.
	vms := e.leaseVMs(d, 1, "node2", e.vm())
	e.calls()
	if err := d.Start(context.Background(), vms); err == nil || !strings.Contains(err.Error(), "Host is offline") {
		t.Errorf("deploy on an offline host: %v", err)
	}
	e.calls()

	if err := p.PowerOn(context.Background(), "node2"); err != nil {
		t.Fatal(err)
	}
	if err := p.PowerOn(context.Background(), "node2"); err != nil { // already on
		t.Fatal(err)
	}
	e.wantCalls("one.host.status(1, 0)")
	if got := e.one.HostTrail(1); !eq(got, []string{"MONITORED", "OFFLINE", "INIT", "MONITORED"}) {
		t.Errorf("node2 went through %v", got)
	}
	e.calls()
	if err := p.Disable(context.Background(), "node1"); err != nil {
		t.Fatal(err)
	}
	if err := p.Disable(context.Background(), "node1"); err != nil {
		t.Fatal(err)
	}
	if err := p.Enable(context.Background(), "node1"); err != nil {
		t.Fatal(err)
	}
	e.wantCalls("one.host.status(0, 1)", "one.host.status(0, 0)")
	if err := p.PowerOn(context.Background(), "node9"); err == nil {
		t.Error("PowerOn of an unknown host: no error")
	}
}
