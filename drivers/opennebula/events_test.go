package opennebula

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
)

// nextEvent waits for an event (or fails after a second).
func nextEvent(t *testing.T, d *Driver) drivers.Event {
	t.Helper()
	select {
	case ev := <-d.Events():
		return ev
	case <-time.After(time.Second):
		t.Fatal("no event")
	}
	return drivers.Event{}
}

func noEvent(t *testing.T, d *Driver, within time.Duration) {
	t.Helper()
	select {
	case ev := <-d.Events():
		t.Errorf("unexpected event %+v", ev)
	case <-time.After(within):
	}
}

func TestEventsForVMsGoneBehindBorasBack(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	_, killed := e.running(d, 1, "node1", 1)
	_, exited := e.running(d, 2, "node1", 1)
	_, lost := e.running(d, 3, "node2", 1)
	stopped, _ := e.running(d, 4, "node1", 1)

	// bora's own Stop is not news.
	if err := d.Stop(context.Background(), stopped); err != nil {
		t.Fatal(err)
	}
	noEvent(t, d, 100*time.Millisecond)

	if err := e.one.Terminate(killed[0], true); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, d)
	if ev.Kind != drivers.VMCrashed || ev.Lease != 1 || ev.Index != 0 || !strings.Contains(ev.Detail, "DONE") {
		t.Errorf("terminated behind bora's back: %+v", ev)
	}

	if err := e.one.GuestPoweroff(exited[0]); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, d)
	if ev.Kind != drivers.VMExited || ev.Lease != 2 || ev.Host != "node1" || !strings.Contains(ev.Detail, "POWEROFF") {
		t.Errorf("guest powered off: %+v", ev)
	}

	e.one.FailHost(1) // node2
	got := map[drivers.EventKind]drivers.Event{}
	for i := 0; i < 2; i++ {
		ev := nextEvent(t, d)
		got[ev.Kind] = ev
	}
	if ev := got[drivers.HostDown]; ev.Host != "node2" {
		t.Errorf("host failure: %+v", got)
	}
	if ev := got[drivers.VMCrashed]; ev.Lease != 3 || !strings.Contains(ev.Detail, "UNKNOWN") {
		t.Errorf("VM on the failed host: %+v", got)
	}
	_ = lost
	e.one.RecoverHost(1)
	if ev := nextEvent(t, d); ev.Kind != drivers.HostUp || ev.Host != "node2" {
		t.Errorf("host back: %+v", ev)
	}
	// Each trouble is reported once.
	noEvent(t, d, 100*time.Millisecond)
}

func TestCloseClosesEvents(t *testing.T) {
	e := newEnv(t)
	d := e.driver()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-d.Events(); ok {
		t.Error("Events still open after Close")
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.Start(context.Background(), nil); err == nil {
		t.Error("Start after Close: no error")
	}
}
