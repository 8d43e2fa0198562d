package integration

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// libvirtHostsYAML is the driver section for the two CI libvirtd hosts
// (.ci/libvirt/run-tests.sh sets the variables), or "" when they are not
// there.
func libvirtHostsYAML(t *testing.T) string {
	a, b := os.Getenv("BORA_LIBVIRT_A"), os.Getenv("BORA_LIBVIRT_B")
	guest, shared := os.Getenv("BORA_GUEST_DIR"), os.Getenv("BORA_SHARED_DIR")
	if a == "" || b == "" || guest == "" || shared == "" {
		return ""
	}
	mig := func(uri string) string {
		u, err := url.Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		return "tcp://" + u.Hostname()
	}
	return fmt.Sprintf(`driver:
  name: libvirt
  libvirt:
    shared_dir: %s
    migrate_unsafe: true
    op_timeout: 3m
    template: {kernel: %s, initrd: %s, cmdline: "console=ttyS0 quiet"}
    hosts:
      - {name: a, uri: "%s", migration_uri: "%s"}
      - {name: b, uri: "%s", migration_uri: "%s"}
hosts:                 # one 128 MB VM per host at a time
  - {name: a, cpu: 1, memory: 256}
  - {name: b, cpu: 1, memory: 256}
`, filepath.Join(shared, "borad-e2e"), filepath.Join(guest, "vmlinuz"), filepath.Join(guest, "initrd.img"),
		a, mig(a), b, mig(b))
}

// TestDaemonLibvirt drives borad over two real libvirtd hosts and qemu
// guests through bora: two best-effort leases start, a local advance
// reservation for both hosts suspends them (memory saved to shared
// storage), runs, and the leases are restored afterwards, on real VMs.
func TestDaemonLibvirt(t *testing.T) {
	drv := libvirtHostsYAML(t)
	if drv == "" {
		t.Skip("no libvirtd hosts: .ci/libvirt/run-tests.sh sets BORA_LIBVIRT_A/B, BORA_GUEST_DIR, BORA_SHARED_DIR")
	}
	if err := os.MkdirAll(filepath.Join(os.Getenv("BORA_SHARED_DIR"), "borad-e2e"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The overhead model with rates near what calibration measures here
	// (save ~100 MB/s, restore ~300 MB/s under TCG), so reservations
	// match what the hosts really take.
	c := newClusterYAML(t, fmt.Sprintf(`daemon: {clock: real, op_timeout: 3m, op_retries: 1, shutdown_grace: 5s}
scheduler:
  check_invariants: true
  overheads: {suspend_rate: 40, resume_rate: 100, enactment: 10s, shutdown: 10s}
%s`, drv))
	c.start()
	be1 := c.create("--vms", "1", "--memory", "128", "--duration", "30m", "--origin", "external", "--class", "suspendable")
	be2 := c.create("--vms", "1", "--memory", "128", "--duration", "30m", "--origin", "external", "--class", "suspendable")
	c.waitState(be1.ID, 2*time.Minute, "running")
	c.waitState(be2.ID, 2*time.Minute, "running")
	ar := c.create("--vms", "2", "--memory", "128", "--duration", "40s", "--start", "+45s")
	if ar.State != "scheduled" {
		t.Fatalf("advance reservation: %+v", ar)
	}
	c.waitState(be1.ID, 2*time.Minute, "suspended", "queued", "scheduled")
	c.waitState(ar.ID, 2*time.Minute, "running")
	for _, id := range []uint64{be1.ID, be2.ID} {
		l := c.waitState(id, 4*time.Minute, "running")
		if p := path(l); !strings.Contains(p, "suspending,suspended") || !strings.HasSuffix(p, "resuming,running") {
			t.Fatalf("lease %d went %s", id, p)
		}
	}
	a := c.show(ar.ID)
	if a.State != "done" {
		t.Fatalf("the reservation is %s after the leases resumed", a.State)
	}
	for _, id := range []uint64{be1.ID, be2.ID} {
		c.must("lease", "cancel", fmt.Sprint(id))
		c.waitState(id, time.Minute, "cancelled")
	}
	c.stop(syscall.SIGTERM)
}
