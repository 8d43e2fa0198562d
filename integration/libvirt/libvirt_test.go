// Package libvirt_test runs the libvirt driver against real libvirtd
// hosts and real qemu guests (.ci/libvirt/run-tests.sh sets them up). The
// tests skip when BORA_LIBVIRT_A is not set.
package libvirt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/bora-sched/bora/drivers"
	lv "github.com/bora-sched/bora/drivers/libvirt"
)

// TestLeaseLifecycle is one lease of two VMs through everything the
// daemon does to it: start on A, suspend (pause all, then save), resume on
// B (a cold migration: the counters go on, the guests did not reboot),
// live migration back to A, a cold migration to B again, a fresh driver
// finding the VMs, shutdown with a grace time and cleanup. Every
// operation is done twice (idempotency), and no VM event may be reported:
// bora caused every stop itself.
func TestLeaseLifecycle(t *testing.T) {
	e := needHosts(t, true)
	d := open(t, e.config())
	evs := collect(d)
	id := leaseID(1)
	vms := lease(id, 2, "a")
	cleanupAtEnd(t, d, vms)
	ctx := ctxFor(t, 8*time.Minute)
	twice := func(name string, f func() error) {
		t.Helper()
		step(t, name, f)
		step(t, name+" (again)", f)
	}

	twice("start on a", func() error { return d.Start(ctx, vms) })
	for _, vm := range vms {
		if !fileExists(filepath.Join(e.shared, vm.Name()+".qcow2")) {
			t.Fatalf("no overlay for %s", vm.Name())
		}
	}
	c := waitCounter(t, e.shared, vms, []int{2, 2}, 90*time.Second)
	wantStates(t, d, id, map[int]string{0: "a/running", 1: "a/running"})

	twice("suspend on a", func() error { return d.Suspend(ctx, vms) })
	before := counters(e.shared, vms)
	for _, vm := range vms {
		if !fileExists(lv.SavePath(e.shared, vm.Name())) {
			t.Fatalf("no saved image for %s", vm.Name())
		}
	}
	wantStates(t, d, id, map[int]string{0: "/saved", 1: "/saved"})
	// A daemon restart while suspended: a fresh driver finds the images.
	fresh := open(t, e.config())
	wantStates(t, fresh, id, map[int]string{0: "/saved", 1: "/saved"})
	_ = fresh.Close()
	time.Sleep(1500 * time.Millisecond)
	if now := counters(e.shared, vms); now[0] != before[0] || now[1] != before[1] {
		t.Fatalf("counters moved while suspended: %v then %v", before, now)
	}

	twice("migrate a->b (shared storage)", func() error { return d.Migrate(ctx, on(vms, "b"), hostsOf(2, "a")) })
	twice("resume on b", func() error { return d.Resume(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{0: "b/running", 1: "b/running"})
	c = waitCounter(t, e.shared, vms, plus(before, 2), 30*time.Second)
	checkNoReboot(t, e.shared, vms)
	t.Logf("counters before suspension %v, after resumption on b %v", before, c)

	// A daemon restart: a fresh driver finds the same VMs where they are.
	d2 := open(t, e.config())
	wantStates(t, d2, id, map[int]string{0: "b/running", 1: "b/running"})
	_ = d2.Close()

	// From here on, the first attempt of each operation is cut off by its
	// context after 300 ms (libvirtd goes on with it), as when the daemon's
	// deadline passes or it dies; the retry must end in the same state.
	cutOff := func(name string, f func(context.Context) error) {
		t.Helper()
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := f(short)
		cancel()
		t.Logf("%-34s cut off after 300ms: %v", name, err)
		step(t, name+" (retry)", func() error { return f(ctx) })
		step(t, name+" (again)", func() error { return f(ctx) })
	}
	cutOff("live migrate b->a", func(ctx context.Context) error { return d.LiveMigrate(ctx, on(vms, "b"), hostsOf(2, "a")) })
	wantStates(t, d, id, map[int]string{0: "a/running", 1: "a/running"})
	c = waitCounter(t, e.shared, vms, plus(c, 2), 30*time.Second)

	cutOff("cold: suspend on a", func(ctx context.Context) error { return d.Suspend(ctx, vms) })
	wantStates(t, d, id, map[int]string{0: "/saved", 1: "/saved"})
	twice("cold: migrate a->b", func() error { return d.Migrate(ctx, on(vms, "b"), hostsOf(2, "a")) })
	cutOff("cold: resume on b", func(ctx context.Context) error { return d.Resume(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{0: "b/running", 1: "b/running"})
	waitCounter(t, e.shared, vms, plus(c, 2), 30*time.Second)
	checkNoReboot(t, e.shared, vms)

	// The guests power off at the ACPI button: well within the grace time.
	took := step(t, "shutdown on b (grace 30s)", func() error { return d.Shutdown(ctx, on(vms, "b"), 30*time.Second) })
	if took > 20*time.Second {
		t.Errorf("shutdown took %v: the guests did not react to the power button", took)
	}
	step(t, "shutdown on b (again)", func() error { return d.Shutdown(ctx, on(vms, "b"), 30*time.Second) })
	step(t, "stop on b (not running)", func() error { return d.Stop(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{0: "b/stopped", 1: "b/stopped"})
	// Defined but shut off: Start boots the definition again.
	step(t, "start on b (defined, shut off)", func() error { return d.Start(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{0: "b/running", 1: "b/running"})
	twice("stop on b", func() error { return d.Stop(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{0: "b/stopped", 1: "b/stopped"})

	twice("cleanup", func() error { return d.Cleanup(ctx, on(vms, "b")) })
	wantStates(t, d, id, map[int]string{})
	for _, vm := range vms {
		for _, ext := range []string{".qcow2", ".save", ".save.part", ".console"} {
			if p := filepath.Join(e.shared, vm.Name()+ext); fileExists(p) {
				t.Errorf("cleanup left %s", p)
			}
		}
	}
	time.Sleep(time.Second) // late events would show now
	if got := evs.of(id); len(got) != 0 {
		t.Errorf("events for stops bora caused itself: %+v", got)
	}
}

// checkNoReboot fails if a guest booted more than once: a restored guest
// goes on where it was.
func checkNoReboot(t *testing.T, shared string, vms []drivers.VM) {
	t.Helper()
	for _, vm := range vms {
		if _, boots := console(shared, vm); boots != 1 {
			t.Fatalf("%s booted %d times: restored by a reboot, not from its image", vm.Name(), boots)
		}
	}
}

// TestEventsBehindBorasBack: a VM destroyed by someone else is reported
// crashed, a guest that powers off by itself exited; a foreign domain
// (its name is not bora's) is neither reported, listed nor touched.
func TestEventsBehindBorasBack(t *testing.T) {
	e := needHosts(t, false)
	d := open(t, e.config())
	evs := collect(d)
	halting := e.config()
	halting.Template.Cmdline += " halt=3" // this guest powers off after counting to 3
	d2 := open(t, halting)
	evs2 := collect(d2)
	ctx := ctxFor(t, 3*time.Minute)

	crash, exit := lease(leaseID(2), 1, "a"), lease(leaseID(3), 1, "a")
	cleanupAtEnd(t, d, crash)
	cleanupAtEnd(t, d2, exit)
	foreign := defineForeign(t, e)

	step(t, "start two VMs", func() error {
		if err := d.Start(ctx, crash); err != nil {
			return err
		}
		return d2.Start(ctx, exit)
	})
	raw := rawConn(t, e.a)
	dom, err := raw.DomainLookupByName(crash[0].Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.DomainDestroy(dom); err != nil {
		t.Fatal(err)
	}
	if err := raw.DomainDestroy(foreign); err != nil {
		t.Fatal(err)
	}
	ev := evs.wait(t, 10*time.Second, "vm-crashed", func(ev drivers.Event) bool { return ev.Lease == crash[0].Lease })
	if ev.Kind != drivers.VMCrashed || ev.Host != "a" || ev.Index != 0 {
		t.Errorf("event %+v, want vm-crashed of %s on a", ev, crash[0].Name())
	}
	t.Logf("destroyed behind bora's back: %+v", ev)
	ev = evs2.wait(t, 90*time.Second, "vm-exited", func(ev drivers.Event) bool { return ev.Lease == exit[0].Lease })
	if ev.Kind != drivers.VMExited {
		t.Errorf("event %+v, want vm-exited of %s", ev, exit[0].Name())
	}
	t.Logf("powered off by itself: %+v", ev)

	for _, x := range [][]drivers.Event{evs.snapshot(), evs2.snapshot()} {
		for _, ev := range x {
			if ev.Lease != crash[0].Lease && ev.Lease != exit[0].Lease {
				t.Errorf("unexpected event %+v (the foreign domain?)", ev)
			}
		}
	}
	all, err := d.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Lease == 0 {
			t.Errorf("List reports a domain that is not bora's: %+v", s)
		}
	}
	// Cleanup of everything bora has leaves the foreign domain defined.
	if err := d.Cleanup(ctx, crash); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.DomainLookupByName("bora-foreign"); err != nil {
		t.Errorf("the foreign domain is gone: %v", err)
	}
}

// defineForeign defines and starts "bora-foreign" on A behind bora's back
// (a name that drivers.ParseName rejects) and removes it at the end.
func defineForeign(t *testing.T, e env) golibvirt.Domain {
	t.Helper()
	raw := rawConn(t, e.a)
	cfg := e.config().WithDefaults()
	cfg.Template.BaseImage = ""
	xml, err := lv.DomainXML(cfg, drivers.VM{Lease: 1, Index: 0, CPU: 100, Memory: guestMB})
	if err != nil {
		t.Fatal(err)
	}
	xml = strings.Replace(xml, "<name>bora-1-0</name>", "<name>bora-foreign</name>", 1)
	xml = strings.Replace(xml, "bora-1-0.console", "bora-foreign.console", 1)
	if old, err := raw.DomainLookupByName("bora-foreign"); err == nil {
		_ = raw.DomainDestroy(old)
		_ = raw.DomainUndefine(old)
	}
	dom, err := raw.DomainDefineXMLFlags(xml, 0)
	if err != nil {
		t.Fatalf("defining the foreign domain: %v", err)
	}
	if _, err := raw.DomainCreateWithFlags(dom, 0); err != nil {
		t.Fatalf("starting the foreign domain: %v", err)
	}
	t.Cleanup(func() {
		_ = raw.DomainDestroy(dom)
		_ = raw.DomainUndefine(dom)
		_ = os.Remove(lv.ConsolePath(e.shared, "bora-foreign"))
	})
	return dom
}

// TestErrors: the sentinels of drivers.go for what cannot be done, and
// no error for what is already done.
func TestErrors(t *testing.T) {
	e := needHosts(t, false)
	d := open(t, e.config())
	ctx := ctxFor(t, time.Minute)
	ghost := lease(leaseID(4), 1, "a")
	cleanupAtEnd(t, d, ghost)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"resume without image", d.Resume(ctx, ghost), drivers.ErrNotSaved},
		{"migrate without image", d.Migrate(ctx, ghost, []string{"a"}), drivers.ErrNotSaved},
		{"suspend of nothing", d.Suspend(ctx, ghost), lv.ErrNoDomain},
		{"start on unknown host", d.Start(ctx, on(ghost, "nowhere")), drivers.ErrUnknownHost},
		{"stop of nothing", d.Stop(ctx, ghost), nil},
		{"shutdown of nothing", d.Shutdown(ctx, ghost, time.Second), nil},
		{"cleanup of nothing", d.Cleanup(ctx, ghost), nil},
		{"list lengths", d.Migrate(ctx, ghost, nil), lv.ErrBadLength},
		{"unknown image", d.Start(ctx, []drivers.VM{{Lease: leaseID(4), Host: "a", Memory: guestMB, Image: "nope"}}), lv.ErrUnknownImage},
	}
	for _, c := range cases {
		if (c.want == nil && c.err != nil) || (c.want != nil && !errors.Is(c.err, c.want)) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	cold := e.config()
	cold.Migration = "cold"
	dc := open(t, cold)
	if err := dc.LiveMigrate(ctx, ghost, []string{"a"}); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("live migration with migration: cold: %v, want ErrUnsupported", err)
	}
}

// TestShutdownGrace: a guest that does not react to the power button (it
// is still booting: its init listens only later) is destroyed when the
// grace time is over, and that stop is not reported as an event.
func TestShutdownGrace(t *testing.T) {
	e := needHosts(t, false)
	d := open(t, e.config())
	evs := collect(d)
	vms := lease(leaseID(6), 1, "a")
	cleanupAtEnd(t, d, vms)
	ctx := ctxFor(t, 2*time.Minute)
	step(t, "start", func() error { return d.Start(ctx, vms) })
	took := step(t, "shutdown while booting (grace 1s)", func() error { return d.Shutdown(ctx, vms, time.Second) })
	if took < time.Second || took > 15*time.Second {
		t.Errorf("shutdown took %v: want the 1s grace, then a destroy", took)
	}
	wantStates(t, d, leaseID(6), map[int]string{0: "a/stopped"})
	time.Sleep(time.Second)
	if got := evs.of(leaseID(6)); len(got) != 0 {
		t.Errorf("events for a shutdown bora asked for: %+v", got)
	}
}
