package opennebula

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

// testPassword is oneadmin's password in the stand-in; no log line may
// ever contain it (checked when every test ends).
const testPassword = "s3cret-Pa55word"

// pollCalls are the calls the driver makes to watch (not to act); tests
// asserting the calls an operation made leave them out.
var pollCalls = []string{"one.vm.info", "one.vmpool.infoextended", "one.hostpool.info", "one.host.info"}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a stand-in oned over real HTTP with two hosts, node1 (id 0) and
// node2 (id 1), of 8 cores and 16 GB each.
type env struct {
	t    *testing.T
	one  *onetest.Server
	cfg  Config
	logs *syncBuffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	one := onetest.New(onetest.Options{Password: testPassword})
	one.AddHost("node1", 800, 16384)
	one.AddHost("node2", 800, 16384)
	srv := httptest.NewServer(one)
	e := &env{t: t, one: one, logs: &syncBuffer{}}
	e.cfg = DefaultConfig()
	e.cfg.Endpoint = srv.URL + "/RPC2"
	e.cfg.User, e.cfg.Password = "oneadmin", testPassword
	e.cfg.PollInterval = 20 * time.Millisecond
	e.cfg.OpTimeout = 5 * time.Second
	t.Cleanup(func() {
		srv.Close()
		one.Close()
		if strings.Contains(e.logs.String(), testPassword) {
			t.Errorf("the password appears in the logs:\n%s", e.logs.String())
		}
	})
	return e
}

func (e *env) logger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(e.logs)
	l.SetLevel(logrus.DebugLevel)
	return logrus.NewEntry(l)
}

// driver starts a driver on e's configuration, closed at the end.
func (e *env) driver() *Driver {
	e.t.Helper()
	return e.driverWith(e.cfg)
}

func (e *env) driverWith(cfg Config) *Driver {
	e.t.Helper()
	d, err := New(context.Background(), cfg, e.logger())
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	e.t.Cleanup(func() { _ = d.Close() })
	return d
}

// vm creates a VM on HOLD owned by oneadmin from template lines.
func (e *env) vm(lines ...string) int {
	e.t.Helper()
	tpl := "CPU=1\nMEMORY=1024\n" + strings.Join(lines, "\n")
	id, err := e.one.AddVM("oneadmin", tpl, true)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// leaseVMs adopts the VMs ids into lease and returns the lease's VMs,
// all on host.
func (e *env) leaseVMs(d *Driver, lease uint64, host string, ids ...int) []drivers.VM {
	e.t.Helper()
	if err := d.Adopt(context.Background(), lease, ids); err != nil {
		e.t.Fatalf("Adopt: %v", err)
	}
	vms := make([]drivers.VM, len(ids))
	for i := range ids {
		vms[i] = drivers.VM{Lease: lease, Index: i, Host: host, CPU: 100, Memory: 1024}
	}
	return vms
}

// running gives a lease of n VMs running on host.
func (e *env) running(d *Driver, lease uint64, host string, n int) ([]drivers.VM, []int) {
	e.t.Helper()
	ids := make([]int, n)
	for i := range ids {
		ids[i] = e.vm()
	}
	vms := e.leaseVMs(d, lease, host, ids...)
	if err := d.Start(context.Background(), vms); err != nil {
		e.t.Fatalf("Start: %v", err)
	}
	return vms, ids
}

// calls are the calls the stand-in received since the last reset, poll
// calls left out; the list is then reset.
func (e *env) calls() []string {
	c := e.one.CallStrings(pollCalls...)
	e.one.ResetCalls()
	return c
}

func (e *env) trail(id int) []string { return e.one.Trail(id) }

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (e *env) wantCalls(want ...string) {
	e.t.Helper()
	if got := e.calls(); !eq(got, want) {
		e.t.Errorf("calls:\n got %q\nwant %q", got, want)
	}
}

func (e *env) wantTrail(id int, want ...string) {
	e.t.Helper()
	if got := e.trail(id); !eq(got, want) {
		e.t.Errorf("vm %d went through\n %q\nwant %q", id, got, want)
	}
}

func (e *env) wantState(id int, st oca.State, lcm oca.LCMState) {
	e.t.Helper()
	if err := e.one.Await(id, st, lcm, 2*time.Second); err != nil {
		e.t.Error(err)
	}
}
