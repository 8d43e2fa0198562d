package libvirt_test

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	lv "github.com/bora-sched/bora/drivers/libvirt"
)

// The environment .ci/libvirt/run-tests.sh sets.
const (
	envA      = "BORA_LIBVIRT_A"  // URI of host A, e.g. qemu+tcp://127.0.0.1:16509/system
	envB      = "BORA_LIBVIRT_B"  // URI of host B, e.g. qemu+tcp://127.0.0.1:16510/system
	envGuest  = "BORA_GUEST_DIR"  // vmlinuz, initrd.img, base.qcow2 (build-guest.sh)
	envShared = "BORA_SHARED_DIR" // shared storage of both hosts
)

// guestMB is the test VMs' memory: the Debian kernel needs 96 at least.
const guestMB = 128

type env struct {
	a, b, guest, shared string
}

// needHosts skips the test unless the libvirt hosts are configured (two
// of them when two is true).
func needHosts(t *testing.T, two bool) env {
	t.Helper()
	e := env{a: os.Getenv(envA), b: os.Getenv(envB), guest: os.Getenv(envGuest), shared: os.Getenv(envShared)}
	if e.a == "" {
		t.Skipf("%s is not set: these tests need real libvirtd hosts (run .ci/libvirt/run-tests.sh)", envA)
	}
	if two && e.b == "" {
		t.Skipf("%s is not set: this test needs a second libvirtd host", envB)
	}
	if e.guest == "" || e.shared == "" {
		t.Fatalf("%s and %s must be set with %s (see .ci/libvirt/run-tests.sh)", envGuest, envShared, envA)
	}
	return e
}

// migrationURI is where a host given by a TCP libvirt URI takes migration
// streams: the same address.
func migrationURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return "tcp://" + u.Hostname()
}

// config is the driver configuration of the tests: hosts a (and b), the
// build-guest.sh kernel and initramfs, with an overlay of base.qcow2.
func (e env) config() lv.Config {
	c := lv.Config{
		Hosts: []lv.HostConfig{{Name: "a", URI: e.a, MigrationURI: migrationURI(e.a)}},
		Template: lv.Template{
			Kernel:    filepath.Join(e.guest, "vmlinuz"),
			Initrd:    filepath.Join(e.guest, "initrd.img"),
			Cmdline:   "console=ttyS0 quiet",
			BaseImage: filepath.Join(e.guest, "base.qcow2"),
		},
		SharedDir:     e.shared,
		MigrateUnsafe: true, // one machine: libvirt cannot see that the directory is shared
		OpTimeout:     3 * time.Minute,
	}
	if e.b != "" {
		c.Hosts = append(c.Hosts, lv.HostConfig{Name: "b", URI: e.b, MigrationURI: migrationURI(e.b)})
	}
	return c
}

func logger(t *testing.T) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(logrus.DebugLevel)
	return l.WithField("component", "libvirt-test")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func open(t *testing.T, cfg lv.Config) *lv.Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := lv.New(ctx, cfg, logger(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// lease is n VMs of lease id on host.
func lease(id drivers.LeaseID, n int, host string) []drivers.VM {
	vms := make([]drivers.VM, n)
	for i := range vms {
		vms[i] = drivers.VM{Lease: id, Index: i, Host: host, CPU: 100, Memory: guestMB}
	}
	return vms
}

func on(vms []drivers.VM, host string) []drivers.VM {
	out := append([]drivers.VM(nil), vms...)
	for i := range out {
		out[i].Host = host
	}
	return out
}

func hostsOf(n int, host string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = host
	}
	return out
}

// leaseID is a lease number unlikely to clash with a leftover of another
// run: the process id and a per-test number.
func leaseID(k int) drivers.LeaseID { return drivers.LeaseID(os.Getpid()%100000*100 + k) }

// cleanupAtEnd destroys and removes the VMs when the test ends, whatever
// happened.
func cleanupAtEnd(t *testing.T, d *lv.Driver, vms []drivers.VM) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := d.Cleanup(ctx, on(vms, "")); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// console reads a VM's serial log: the last counter printed (-1: none
// yet) and how many times the guest booted.
func console(shared string, vm drivers.VM) (last int, boots int) {
	last = -1
	f, err := os.Open(lv.ConsolePath(shared, vm.Name()))
	if err != nil {
		return -1, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, ok := strings.CutPrefix(line, "bora-counter "); ok {
			if v, err := strconv.Atoi(n); err == nil {
				last = v
			}
		}
		if line == "bora-guest: up" {
			boots++
		}
	}
	return last, boots
}

// waitCounter waits until every VM's counter reaches at least min[i].
func waitCounter(t *testing.T, shared string, vms []drivers.VM, min []int, within time.Duration) []int {
	t.Helper()
	end := time.Now().Add(within)
	for {
		now := make([]int, len(vms))
		ok := true
		for i, vm := range vms {
			now[i], _ = console(shared, vm)
			ok = ok && now[i] >= min[i]
		}
		if ok {
			return now
		}
		if time.Now().After(end) {
			t.Fatalf("counters %v did not reach %v within %v", now, min, within)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func counters(shared string, vms []drivers.VM) []int {
	out := make([]int, len(vms))
	for i, vm := range vms {
		out[i], _ = console(shared, vm)
	}
	return out
}

func plus(v []int, k int) []int {
	out := make([]int, len(v))
	for i := range v {
		out[i] = v[i] + k
	}
	return out
}

// states is List's view of one lease: "host/state" per index.
func states(t *testing.T, d *lv.Driver, id drivers.LeaseID) map[int]string {
	t.Helper()
	all, err := d.List(ctxFor(t, time.Minute))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	out := map[int]string{}
	for _, s := range all {
		if s.Lease == id {
			if _, dup := out[s.Index]; dup {
				t.Errorf("List reports VM %d of lease %d twice: %+v", s.Index, id, all)
			}
			out[s.Index] = s.Host + "/" + string(s.State)
		}
	}
	return out
}

func wantStates(t *testing.T, d *lv.Driver, id drivers.LeaseID, want map[int]string) {
	t.Helper()
	got := states(t, d, id)
	if len(got) != len(want) {
		t.Fatalf("List for lease %d = %v, want %v", id, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("List for lease %d = %v, want %v", id, got, want)
		}
	}
}

// events collects a driver's events in the background.
type events struct {
	mu  sync.Mutex
	all []drivers.Event
}

func collect(d *lv.Driver) *events {
	e := &events{}
	go func() {
		for ev := range d.Events() {
			e.mu.Lock()
			e.all = append(e.all, ev)
			e.mu.Unlock()
		}
	}()
	return e
}

func (e *events) of(id drivers.LeaseID) []drivers.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []drivers.Event
	for _, ev := range e.all {
		if ev.Lease == id && (ev.Kind == drivers.VMCrashed || ev.Kind == drivers.VMExited) {
			out = append(out, ev)
		}
	}
	return out
}

func (e *events) snapshot() []drivers.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]drivers.Event(nil), e.all...)
}

// wait waits for an event that match accepts.
func (e *events) wait(t *testing.T, within time.Duration, what string, match func(drivers.Event) bool) drivers.Event {
	t.Helper()
	end := time.Now().Add(within)
	for time.Now().Before(end) {
		e.mu.Lock()
		for _, ev := range e.all {
			if match(ev) {
				e.mu.Unlock()
				return ev
			}
		}
		e.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t.Fatalf("no %s event within %v; events: %+v", what, within, e.all)
	return drivers.Event{}
}

// rawConn is a libvirt connection of the test's own ("behind bora's back").
func rawConn(t *testing.T, uri string) *golibvirt.Libvirt {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	l, err := golibvirt.ConnectToURI(u)
	if err != nil {
		t.Fatalf("connecting to %s: %v", uri, err)
	}
	t.Cleanup(func() { _ = l.Disconnect() })
	return l
}

func step(t *testing.T, name string, f func() error) time.Duration {
	t.Helper()
	start := time.Now()
	if err := f(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	took := time.Since(start)
	t.Logf("%-34s %v", name, took.Round(time.Millisecond))
	return took
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
