package fake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/overhead"
)

var _ drivers.Driver = (*Driver)(nil)

// Driver is the fake driver. Safe for concurrent use.
type Driver struct {
	clk       clock.Clock
	log       *logrus.Entry
	ov        overhead.Params
	boot      time.Duration
	stateFile string

	mu     sync.Mutex
	order  []string // host names, in configuration order
	hosts  map[string]*host
	vms    map[string]*vm // by VM name
	limits map[uint64]time.Duration
	faults []*fault
	losses []loss
	closed bool

	events *eventQueue
	wake   chan struct{} // nudges the timer loop after a change
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup
}

type host struct {
	spec HostSpec
	up   bool
}

// fault is a Fault with the number of times it has fired.
type fault struct {
	Fault
	fired int
}

// loss is a pending host loss.
type loss struct {
	host string
	at   time.Time
}

// vm is one emulated VM.
type vm struct {
	name   string
	lease  uint64
	index  int
	bora   bool // the name parses with drivers.ParseName
	host   string
	state  drivers.State
	cpu    int64
	memory int64
	detail string
	run    time.Duration // time spent running before since
	since  time.Time     // when it last started running; zero unless running
	frozen time.Time     // an operation in flight stopped its clock then; zero if none
	gen    uint64        // bumped on every change an operation must not miss
}

// ranAt is how long v has run by now.
func (v *vm) ranAt(now time.Time) time.Duration {
	if v.since.IsZero() {
		return v.run
	}
	end := now
	if !v.frozen.IsZero() && v.frozen.Before(end) {
		end = v.frozen
	}
	if end.Before(v.since) {
		return v.run
	}
	return v.run + end.Sub(v.since)
}

// halt stops v's run clock at t and moves it to state s.
func (v *vm) halt(t time.Time, s drivers.State, detail string) {
	v.run = v.ranAt(t)
	v.since, v.frozen = time.Time{}, time.Time{}
	v.state, v.detail = s, detail
	v.gen++
}

// New builds a fake driver for cfg, reading cfg.StateFile when it exists.
// Configuration errors are *fielderr.Error naming the field; a
// state file that cannot be read or written is an error too. A nil log
// keeps the driver quiet.
func New(cfg Config, clk clock.Clock, log *logrus.Entry) (*Driver, error) {
	if clk == nil {
		return nil, errors.New("fake driver: nil clock")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	d := &Driver{
		clk:       clk,
		log:       log,
		ov:        cfg.Overheads,
		boot:      cfg.Overheads.Enactment,
		stateFile: cfg.StateFile,
		hosts:     make(map[string]*host, len(cfg.Hosts)),
		vms:       make(map[string]*vm),
		limits:    make(map[uint64]time.Duration),
		events:    newEventQueue(),
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	if cfg.Boot > 0 {
		d.boot = cfg.Boot
	}
	for _, h := range cfg.Hosts {
		d.order = append(d.order, h.Name)
		d.hosts[h.Name] = &host{spec: h, up: true}
	}
	now := clk.Now()
	for _, f := range cfg.Faults {
		d.addFaultLocked(f, now)
	}
	if d.stateFile != "" {
		if err := d.load(now); err != nil {
			return nil, fmt.Errorf("fake driver: state file %s: %w", d.stateFile, err)
		}
		if err := d.persistLocked(); err != nil {
			return nil, fmt.Errorf("fake driver: %w", err)
		}
	}
	d.wg.Add(2)
	go d.events.run(&d.wg)
	go d.timerLoop()
	return d, nil
}

// Hosts lists the hosts in configuration order, with Up false for those
// lost. It returns ErrClosed after Close.
func (d *Driver) Hosts(ctx context.Context) ([]drivers.Host, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	out := make([]drivers.Host, 0, len(d.order))
	for _, name := range d.order {
		h := d.hosts[name]
		out = append(out, drivers.Host{Name: name, CPU: h.spec.CPU, Memory: h.spec.Memory, Up: h.up})
	}
	return out, nil
}

// List reports bora's VMs (those whose names drivers.ParseName accepts)
// on the hosts that are up, by lease and index. It returns ErrClosed
// after Close.
func (d *Driver) List(ctx context.Context) ([]drivers.VMStatus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	var out []drivers.VMStatus
	for _, v := range d.sortedLocked() {
		if h := d.hosts[v.host]; !v.bora || h == nil || !h.up {
			continue
		}
		out = append(out, drivers.VMStatus{Lease: v.lease, Index: v.index, Host: v.host, State: v.state, Detail: v.detail,
			CPU: v.cpu, Memory: v.memory})
	}
	return out, nil
}

// sortedLocked returns the VMs by lease, index and name.
func (d *Driver) sortedLocked() []*vm {
	out := make([]*vm, 0, len(d.vms))
	for _, v := range d.vms {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *vm) int {
		if c := cmp.Compare(a.lease, b.lease); c != 0 {
			return c
		}
		if c := cmp.Compare(a.index, b.index); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	return out
}

// Events delivers VM exits and crashes and host losses. No event is ever
// dropped while the driver is open: they queue without bound until read.
// Close closes the channel.
func (d *Driver) Events() <-chan drivers.Event { return d.events.out }

// Close stops the driver: operations in flight return ErrClosed, the
// event channel is closed. The state file, if any, stays as it is. Close
// is idempotent and always returns nil.
func (d *Driver) Close() error {
	if d == nil { // what a failed New returns
		return nil
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	close(d.done)
	d.mu.Unlock()
	d.events.close()
	d.wg.Wait()
	return nil
}

// poke tells the timer loop that deadlines may have changed.
func (d *Driver) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// emitLocked queues an event.
func (d *Driver) emitLocked(e drivers.Event) {
	d.log.WithFields(logrus.Fields{"event": e.Kind, "lease_id": e.Lease, "index": e.Index, "host": e.Host}).Info("fake driver event")
	d.events.push(e)
}

// changedLocked records a change made outside an operation: it is
// persisted and the timer loop re-reads its deadlines.
func (d *Driver) changedLocked() {
	if err := d.persistLocked(); err != nil {
		d.log.WithError(err).Warn("cannot write the fake driver's state")
	}
	d.poke()
}
