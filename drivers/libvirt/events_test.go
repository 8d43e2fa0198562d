package libvirt

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// bare is a Driver without connections: enough for event handling and
// the shared directory.
func bare(t *testing.T) (*Driver, *host) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	cfg := good()
	cfg.SharedDir = t.TempDir()
	d := &Driver{cfg: cfg.WithDefaults(), log: logrus.NewEntry(l), queue: newEventQueue(), queueEnd: make(chan struct{})}
	go d.queue.run(d.queueEnd)
	t.Cleanup(func() { close(d.queueEnd) })
	return d, &host{cfg: cfg.Hosts[0], log: d.log}
}

func stopped(name string, detail golibvirt.DomainEventStoppedDetailType) golibvirt.DomainEventLifecycleMsg {
	return golibvirt.DomainEventLifecycleMsg{Dom: golibvirt.Domain{Name: name}, Event: int32(golibvirt.DomainEventStopped), Detail: int32(detail)}
}

func next(t *testing.T, d *Driver) (drivers.Event, bool) {
	select {
	case e := <-d.Events():
		return e, true
	case <-time.After(100 * time.Millisecond):
		return drivers.Event{}, false
	}
}

func TestLifecycleEvents(t *testing.T) {
	cases := []struct {
		name   string
		msg    golibvirt.DomainEventLifecycleMsg
		expect bool // bora caused it
		want   drivers.EventKind
	}{
		{"guest powered off", stopped("bora-4-1", golibvirt.DomainEventStoppedShutdown), false, drivers.VMExited},
		{"destroyed by someone", stopped("bora-4-1", golibvirt.DomainEventStoppedDestroyed), false, drivers.VMCrashed},
		{"crashed", stopped("bora-4-1", golibvirt.DomainEventStoppedCrashed), false, drivers.VMCrashed},
		{"qemu died", stopped("bora-4-1", golibvirt.DomainEventStoppedFailed), false, drivers.VMCrashed},
		{"saved by someone", stopped("bora-4-1", golibvirt.DomainEventStoppedSaved), false, drivers.VMCrashed},
		{"destroyed by bora", stopped("bora-4-1", golibvirt.DomainEventStoppedDestroyed), true, ""},
		{"saved by bora", stopped("bora-4-1", golibvirt.DomainEventStoppedSaved), true, ""},
		{"migrated by bora", stopped("bora-4-1", golibvirt.DomainEventStoppedMigrated), true, ""},
		{"foreign domain", stopped("web-1", golibvirt.DomainEventStoppedDestroyed), false, ""},
		{"almost bora's", stopped("bora-4-1-x", golibvirt.DomainEventStoppedDestroyed), false, ""},
		{"started", golibvirt.DomainEventLifecycleMsg{Dom: golibvirt.Domain{Name: "bora-4-1"}, Event: int32(golibvirt.DomainEventStarted)}, false, ""},
		{"paused", golibvirt.DomainEventLifecycleMsg{Dom: golibvirt.Domain{Name: "bora-4-1"}, Event: int32(golibvirt.DomainEventSuspended)}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, h := bare(t)
			if tc.expect {
				d.expectStop(h, tc.msg.Dom.Name, time.Now().Add(time.Minute))
			}
			d.lifecycle(h, tc.msg)
			e, got := next(t, d)
			if tc.want == "" {
				if got {
					t.Fatalf("event %+v, want none", e)
				}
				return
			}
			if !got || e.Kind != tc.want || e.Lease != 4 || e.Index != 1 || e.Host != "a" || e.Detail == "" {
				t.Fatalf("event %+v (got %v), want %s of lease 4 VM 1 on a", e, got, tc.want)
			}
		})
	}
}

// An expectation is consumed by one stop: the next one is reported.
func TestExpectationConsumed(t *testing.T) {
	d, h := bare(t)
	d.expectStop(h, "bora-1-0", time.Now().Add(time.Minute))
	d.lifecycle(h, stopped("bora-1-0", golibvirt.DomainEventStoppedDestroyed))
	if e, got := next(t, d); got {
		t.Fatalf("expected stop reported: %+v", e)
	}
	d.lifecycle(h, stopped("bora-1-0", golibvirt.DomainEventStoppedDestroyed))
	if _, got := next(t, d); !got {
		t.Fatal("second stop not reported")
	}
	// Expectations are per host, lapse, and can be dropped.
	var x expectations
	x.add("a", "bora-1-0", time.Now().Add(-time.Second))
	x.add("a", "bora-2-0", time.Now().Add(time.Minute))
	x.add("a", "bora-3-0", time.Now().Add(time.Minute))
	x.drop("a", "bora-3-0")
	if x.take("a", "bora-1-0") || x.take("b", "bora-2-0") || !x.take("a", "bora-2-0") || x.take("a", "bora-3-0") {
		t.Error("lapsed, other-host or dropped expectations taken")
	}
	// Counted: an attempt cut off by its context and its retry expect two
	// stops; one happens, the retry fails and drops its own: none is left.
	x.add("a", "bora-4-0", time.Now().Add(time.Minute))
	x.add("a", "bora-4-0", time.Now().Add(time.Minute))
	if !x.take("a", "bora-4-0") {
		t.Error("first of two expectations not taken")
	}
	x.drop("a", "bora-4-0")
	if x.take("a", "bora-4-0") {
		t.Error("expectation left after one take and one drop of two")
	}
}

// The queue keeps events in order and never blocks the producer.
func TestEventQueue(t *testing.T) {
	d, _ := bare(t)
	for i := 0; i < 1000; i++ { // nobody reads yet
		d.queue.push(drivers.Event{Kind: drivers.HostUp, Index: i})
	}
	for i := 0; i < 1000; i++ {
		if e := <-d.Events(); e.Index != i {
			t.Fatalf("event %d came as %d", i, e.Index)
		}
	}
}

func TestSavedImages(t *testing.T) {
	d, _ := bare(t)
	for _, f := range []string{"bora-3-0.save", "bora-3-1.save", "bora-3-1.qcow2", "bora-4-0.save.part", "web.save", "bora-x-1.save", "bora-5-0.console"} {
		if err := os.WriteFile(filepath.Join(d.cfg.SharedDir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.savedImages()
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Index < got[j].Index })
	// Only complete images (.save, not .save.part) of names bora made.
	if len(got) != 2 || got[0].Lease != 3 || got[0].Index != 0 || got[1].Index != 1 || got[0].State != drivers.Saved || got[0].Host != "" {
		t.Fatalf("saved images %+v, want bora-3-0 and bora-3-1", got)
	}
}

func TestVMState(t *testing.T) {
	for _, c := range []struct {
		st   golibvirt.DomainState
		want drivers.State
	}{
		{golibvirt.DomainRunning, drivers.Running}, {golibvirt.DomainBlocked, drivers.Running},
		{golibvirt.DomainPaused, drivers.Paused}, {golibvirt.DomainPmsuspended, drivers.Paused},
		{golibvirt.DomainShutoff, drivers.Stopped}, {golibvirt.DomainCrashed, drivers.Stopped},
	} {
		if got, _ := vmState(c.st, 0); got != c.want {
			t.Errorf("state %d: %s, want %s", c.st, got, c.want)
		}
	}
}

// New with no reachable host still works: the host is down, operations
// on it fail with ErrHostDown, Close ends the event channel.
func TestNewUnreachable(t *testing.T) {
	cfg := good()
	cfg.Hosts = []HostConfig{{Name: "a", URI: "qemu:///system?socket=" + filepath.Join(t.TempDir(), "none")}}
	cfg.SharedDir = t.TempDir()
	cfg.ConnectTimeout, cfg.ReconnectMin, cfg.ReconnectMax = time.Second, 10*time.Millisecond, 20*time.Millisecond
	d, err := New(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := d.Hosts(t.Context())
	if err != nil || len(hosts) != 1 || hosts[0].Up {
		t.Errorf("Hosts = %+v, %v; want a down", hosts, err)
	}
	err = d.Start(t.Context(), []drivers.VM{{Lease: 1, Host: "a", CPU: 100, Memory: 128}})
	if !isErr(err, drivers.ErrHostDown) {
		t.Errorf("Start on a down host: %v, want ErrHostDown", err)
	}
	if err := d.Start(t.Context(), []drivers.VM{{Lease: 1, Host: "z", Memory: 128}}); !isErr(err, drivers.ErrUnknownHost) {
		t.Errorf("Start on an unknown host: %v, want ErrUnknownHost", err)
	}
	if list, err := d.List(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v; want nothing", list, err)
	}
	_ = d.Close()
	_ = d.Close()
	if _, open := <-d.Events(); open {
		t.Error("event channel open after Close")
	}
}

func TestNewInvalid(t *testing.T) {
	_, err := New(t.Context(), Config{}, nil)
	if !isErr(err, ErrInvalidConfig) {
		t.Errorf("New with an empty config: %v, want ErrInvalidConfig", err)
	}
}

func isErr(err, target error) bool { return errors.Is(err, target) }
