package libvirt

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// Driver is the libvirt driver: it implements drivers.Driver over the
// libvirtd hosts of its Config.
type Driver struct {
	cfg   Config
	log   *logrus.Entry
	hosts map[string]*host
	order []*host // as configured

	ctx      context.Context // ends at Close
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the host watchers
	queue    *eventQueue
	queueEnd chan struct{}
	expected expectations
	closed   sync.Once
}

var _ drivers.Driver = (*Driver)(nil)

// New validates cfg (errors are *fielderr.Error values wrapping
// ErrInvalidConfig), connects to every host at once, bounded by ctx and
// ConnectTimeout, and returns the driver. A host that cannot be reached
// is not an error: it is reported down by Hosts and reconnected in the
// background, with a HostUp event when it answers. log may be nil.
func New(ctx context.Context, cfg Config, log *logrus.Entry) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	if log == nil {
		quiet := logrus.New()
		quiet.SetOutput(io.Discard)
		log = logrus.NewEntry(quiet)
	}
	d := &Driver{cfg: cfg, log: log, hosts: map[string]*host{}, queue: newEventQueue(), queueEnd: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	for _, hc := range cfg.Hosts {
		h := &host{cfg: hc, log: log.WithField("host", hc.Name)}
		d.hosts[hc.Name] = h
		d.order = append(d.order, h)
	}
	conns := make([]*golibvirt.Libvirt, len(d.order))
	var wg sync.WaitGroup
	for i, h := range d.order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
			defer cancel()
			c, err := dial(cctx, h.cfg.URI)
			if err != nil {
				h.log.WithError(err).Warn("host unreachable; retrying in the background")
				return
			}
			h.setConn(c)
			conns[i] = c
		}()
	}
	wg.Wait()
	go d.queue.run(d.queueEnd)
	for i, h := range d.order {
		d.wg.Add(1)
		go d.watch(h, conns[i])
	}
	log.WithField("hosts", len(d.order)).Info("libvirt driver started")
	return d, nil
}

// Config is the driver's configuration, defaults applied.
func (d *Driver) Config() Config { return d.cfg }

// Events delivers VMExited / VMCrashed for bora's domains that stop
// without bora asking, and HostDown / HostUp when a connection drops or
// comes back. Events wait (unbounded) until read. Close closes the
// channel.
func (d *Driver) Events() <-chan drivers.Event { return d.queue.out }

// Close stops the watchers, disconnects from every host and closes the
// event channel. VMs go on running. Calling it again does nothing.
func (d *Driver) Close() error {
	d.closed.Do(func() {
		d.cancel()
		d.wg.Wait()
		for _, h := range d.order {
			h.mu.Lock()
			c := h.conn
			h.conn = nil
			h.mu.Unlock()
			if c != nil {
				_ = c.Disconnect()
			}
		}
		close(d.queueEnd)
		d.log.Info("libvirt driver closed")
	})
	return nil
}

// host finds a configured host; the error wraps drivers.ErrUnknownHost.
func (d *Driver) host(name string) (*host, error) {
	h, ok := d.hosts[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", drivers.ErrUnknownHost, name)
	}
	return h, nil
}

// opContext bounds ctx by OpTimeout when it has no deadline.
func (d *Driver) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d.cfg.OpTimeout)
}

func deadline(ctx context.Context) time.Time {
	t, ok := ctx.Deadline()
	if !ok {
		return time.Now().Add(DefaultOpTimeout)
	}
	return t
}

// Hosts lists every configured host: Up when connected, capacity from
// NodeGetInfo (cores*100, memory in MB) unless the config overrides it. A
// down host keeps the capacity last read (or the override, or 0).
func (d *Driver) Hosts(ctx context.Context) ([]drivers.Host, error) {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	out := make([]drivers.Host, 0, len(d.order))
	for _, h := range d.order {
		info, up := d.nodeInfo(ctx, h)
		hh := drivers.Host{Name: h.cfg.Name, Up: up}
		if info != nil {
			hh.CPU, hh.Memory = info.cpus*100, info.memory
		}
		if h.cfg.CPU > 0 {
			hh.CPU = int64(h.cfg.CPU*100 + 0.5)
		}
		if h.cfg.Memory > 0 {
			hh.Memory = h.cfg.Memory
		}
		out = append(out, hh)
	}
	return out, ctx.Err()
}

// nodeInfo reads (once a connection) what libvirt says of h's capacity.
func (d *Driver) nodeInfo(ctx context.Context, h *host) (*nodeInfo, bool) {
	h.mu.Lock()
	conn, info, last := h.conn, h.info, h.last
	h.mu.Unlock()
	if conn == nil {
		return last, false
	}
	if info != nil {
		return info, true
	}
	var n nodeInfo
	err := call(ctx, h.cfg.Name, conn, func(l *golibvirt.Libvirt) error {
		_, mem, cpus, _, _, _, _, _, err := l.NodeGetInfo()
		n = nodeInfo{cpus: int64(cpus), memory: int64(mem / 1024)}
		return err
	})
	if err != nil {
		h.log.WithError(err).Warn("cannot read host capacity")
		return last, conn.IsConnected()
	}
	h.mu.Lock()
	if h.conn == conn {
		h.info = &n
	}
	h.mu.Unlock()
	return &n, true
}

// List reports bora's domains on every reachable host (running, paused,
// stopped: defined but shut off) and the saved images in the shared
// directory of VMs that run nowhere (Saved, Host "": any host can restore
// them; Detail is the file). Domains whose names ParseName rejects are
// not looked at. Unreachable hosts are skipped.
func (d *Driver) List(ctx context.Context) ([]drivers.VMStatus, error) {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	var out []drivers.VMStatus
	active := map[string]bool{}
	for _, h := range d.order {
		found, err := d.listHost(ctx, h)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			h.log.WithError(err).Warn("cannot list domains; host skipped")
			continue
		}
		for _, f := range found {
			if f.State != drivers.Stopped {
				active[drivers.VM{Lease: f.Lease, Index: f.Index}.Name()] = true
			}
		}
		out = append(out, found...)
	}
	saved, err := d.savedImages()
	if err != nil {
		return nil, err
	}
	for _, s := range saved {
		name := drivers.VM{Lease: s.Lease, Index: s.Index}.Name()
		if active[name] {
			continue // a stale image of a VM that runs again
		}
		// A definition left shut off beside its image is the same VM, saved.
		kept := out[:0]
		for _, o := range out {
			if o.Lease != s.Lease || o.Index != s.Index {
				kept = append(kept, o)
			}
		}
		out = append(kept, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Lease != out[j].Lease {
			return out[i].Lease < out[j].Lease
		}
		return out[i].Index < out[j].Index
	})
	return out, nil
}

func (d *Driver) listHost(ctx context.Context, h *host) ([]drivers.VMStatus, error) {
	var out []drivers.VMStatus
	err := d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, golibvirt.ConnectListDomainsActive|golibvirt.ConnectListDomainsInactive)
		if err != nil {
			return err
		}
		for _, dom := range doms {
			lease, index, ok := drivers.ParseName(dom.Name)
			if !ok {
				continue
			}
			st, reason, err := l.DomainGetState(dom, 0)
			if err != nil {
				if notRunning(err) {
					continue // undefined meanwhile
				}
				return err
			}
			state, detail := vmState(golibvirt.DomainState(st), reason)
			v := drivers.VMStatus{Lease: lease, Index: index, Host: h.cfg.Name, State: state, Detail: detail}
			if state != drivers.Stopped {
				// What the domain holds (best effort: a domain gone meanwhile
				// is reported without).
				if _, _, mem, cpus, _, err := l.DomainGetInfo(dom); err == nil {
					v.CPU, v.Memory = int64(cpus)*100, int64(mem/1024)
				}
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// vmState maps a libvirt domain state to bora's.
func vmState(st golibvirt.DomainState, reason int32) (drivers.State, string) {
	switch st {
	case golibvirt.DomainRunning, golibvirt.DomainBlocked, golibvirt.DomainShutdown:
		return drivers.Running, stateName(st)
	case golibvirt.DomainPaused, golibvirt.DomainPmsuspended:
		return drivers.Paused, stateName(st)
	default:
		return drivers.Stopped, fmt.Sprintf("%s (reason %d)", stateName(st), reason)
	}
}

func stateName(st golibvirt.DomainState) string {
	names := map[golibvirt.DomainState]string{
		golibvirt.DomainNostate: "no state", golibvirt.DomainRunning: "running", golibvirt.DomainBlocked: "blocked",
		golibvirt.DomainPaused: "paused", golibvirt.DomainShutdown: "shutting down", golibvirt.DomainShutoff: "shut off",
		golibvirt.DomainCrashed: "crashed", golibvirt.DomainPmsuspended: "pm-suspended",
	}
	if n, ok := names[st]; ok {
		return n
	}
	return fmt.Sprintf("state %d", st)
}

// active says whether a domain in state st has a process.
func active(st golibvirt.DomainState) bool {
	switch st {
	case golibvirt.DomainShutoff, golibvirt.DomainCrashed, golibvirt.DomainNostate:
		return false
	}
	return true
}

// savedImages lists the complete saved images in the shared directory.
func (d *Driver) savedImages() ([]drivers.VMStatus, error) {
	entries, err := os.ReadDir(d.cfg.SharedDir)
	if err != nil {
		return nil, fmt.Errorf("reading shared dir: %w", err)
	}
	var out []drivers.VMStatus
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".save")
		if !ok || e.IsDir() {
			continue
		}
		lease, index, ok := drivers.ParseName(stem)
		if !ok {
			continue
		}
		out = append(out, drivers.VMStatus{Lease: lease, Index: index, State: drivers.Saved,
			Detail: savePath(d.cfg.SharedDir, stem)})
	}
	return out, nil
}
