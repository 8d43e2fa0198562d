package libvirt_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	lv "github.com/bora-sched/bora/drivers/libvirt"
)

// TestHosts: capacity from NodeGetInfo, or from the config's overrides.
func TestHosts(t *testing.T) {
	e := needHosts(t, false)
	cfg := e.config()
	cfg.Hosts = append(cfg.Hosts, lv.HostConfig{Name: "big", URI: e.a, CPU: 16, Memory: 65536, PeerURI: e.a})
	d := open(t, cfg)
	hosts, err := d.Hosts(ctxFor(t, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]drivers.Host{}
	for _, h := range hosts {
		byName[h.Name] = h
	}
	a := byName["a"]
	// libvirt counts the machine's CPUs: runtime.NumCPU of this process
	// (the tests run on the hosts' machine) times 100.
	if !a.Up || a.CPU != int64(runtime.NumCPU())*100 || a.Memory <= 0 {
		t.Errorf("host a = %+v, want up with %d CPU and memory > 0", a, runtime.NumCPU()*100)
	}
	if big := byName["big"]; !big.Up || big.CPU != 1600 || big.Memory != 65536 {
		t.Errorf("host big = %+v, want the overrides 1600 CPU, 65536 MB", big)
	}
}

// TestHostDownAndUp puts a TCP proxy between the driver and host A, cuts
// it (HostDown, Hosts says down, operations fail with ErrHostDown), then
// lets connections through again (HostUp after a backoff).
func TestHostDownAndUp(t *testing.T) {
	e := needHosts(t, false)
	u, err := url.Parse(e.a)
	if err != nil || u.Scheme != "qemu+tcp" {
		t.Skipf("%s is not a qemu+tcp URI: no proxy to cut", envA)
	}
	p := newProxy(t, u.Host)
	u.Host = p.addr
	cfg := e.config()
	cfg.Hosts = []lv.HostConfig{{Name: "a", URI: u.String()}}
	cfg.Keepalive, cfg.ReconnectMin, cfg.ReconnectMax, cfg.ConnectTimeout = time.Second, 100*time.Millisecond, 400*time.Millisecond, 2*time.Second
	d := open(t, cfg)
	evs := collect(d)
	ctx := ctxFor(t, time.Minute)
	if _, err := d.List(ctx); err != nil { // connected, events subscribed
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)

	p.cut(true)
	ev := evs.wait(t, 10*time.Second, "host-down", func(ev drivers.Event) bool { return ev.Kind == drivers.HostDown })
	t.Logf("cut: %+v", ev)
	hosts, _ := d.Hosts(ctx)
	if hosts[0].Up {
		t.Errorf("Hosts says a is up while cut off")
	}
	if err := d.Stop(ctx, lease(leaseID(5), 1, "a")); !isHostDown(err) {
		t.Errorf("Stop on a cut-off host: %v, want ErrHostDown", err)
	}
	p.cut(false)
	ev = evs.wait(t, 10*time.Second, "host-up", func(ev drivers.Event) bool { return ev.Kind == drivers.HostUp })
	t.Logf("restored: %+v", ev)
	hosts, _ = d.Hosts(ctx)
	if !hosts[0].Up {
		t.Errorf("Hosts says a is down after the reconnection")
	}
	if err := d.Stop(ctx, lease(leaseID(5), 1, "a")); err != nil {
		t.Errorf("Stop after the reconnection: %v", err)
	}
}

func isHostDown(err error) bool {
	for e := err; e != nil; {
		if e == drivers.ErrHostDown {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// proxy forwards TCP connections to target; cut(true) closes those open
// and closes new ones at once.
type proxy struct {
	addr   string
	target string

	mu    sync.Mutex
	down  bool
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), target: target}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		_ = ln.Close()
		p.cut(true)
	})
	go func() {
		for ctx.Err() == nil {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *proxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		_ = c.Close()
		return
	}
	p.mu.Unlock()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, s)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
	_, _ = io.Copy(c, s)
	_ = c.Close()
}

func (p *proxy) cut(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.conns = nil
	}
}

// TestCalibrate boots a test VM and measures positive rates, and the live
// migration time when there is a second host.
func TestCalibrate(t *testing.T) {
	e := needHosts(t, false)
	cfg := e.config()
	cfg.Template.BaseImage = ""
	res, err := lv.Calibrate(ctxFor(t, 5*time.Minute), cfg, 192, logger(t))
	if err != nil {
		t.Fatalf("Calibrate: %v", err)
	}
	t.Logf("calibration: %+v", res)
	if res.SuspendRate <= 0 || res.ResumeRate <= 0 || res.Pause <= 0 || res.SaveTime <= 0 || res.RestoreTime <= 0 {
		t.Errorf("calibration measured nothing: %+v", res)
	}
	// The guest filled 96 of its 192 MB (max(192/2, 192-100) = max(96, 92));
	// the image holds at least that.
	if res.FilledMB != 96 || res.SavedMB < res.FilledMB {
		t.Errorf("filled %d MB, saved %d MB: want 96 filled and at least that saved", res.FilledMB, res.SavedMB)
	}
	if e.b != "" && res.LiveMigration <= 0 {
		t.Errorf("no live migration time with two hosts: %+v", res)
	}
	for _, h := range cfg.Hosts {
		raw := rawConn(t, h.URI)
		if _, err := raw.DomainLookupByName(drivers.VM{Lease: lv.CalibrationLease}.Name()); err == nil {
			t.Errorf("the calibration VM is left on %s", h.Name)
		}
	}
}
