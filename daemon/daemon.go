package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/fake"
	"github.com/bora-sched/bora/drivers/libvirt"
	"github.com/bora-sched/bora/drivers/opennebula"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
	"github.com/bora-sched/bora/store"
)

// Epoch is the daemon's scheduler epoch: request times are offsets from
// the Unix epoch.
var Epoch = time.Unix(0, 0).UTC()

// Options builds a Daemon.
type Options struct {
	Config     config.Config
	ConfigPath string // for reloads and relative paths; may be empty
	Log        *logrus.Logger
	// Driver replaces the one the config names (tests).
	Driver drivers.Driver
	// Registry collects the daemon's metrics; nil: a new one.
	Registry *prometheus.Registry
	// SimQuiet is how long a simulated clock waits without events before
	// it jumps to what comes next (0: 2 ms). Tests that submit several
	// leases "at once" make it longer.
	SimQuiet time.Duration
}

// Daemon is a running borad.
type Daemon struct {
	cfg   config.Config
	path  string
	log   *logrus.Entry
	lg    *logrus.Logger
	clk   clock.Clock
	store *store.Store
	drv   drivers.Driver
	reg   *prometheus.Registry
	m     *metrics

	table *slottable.Table
	sched *scheduler.Scheduler
	hosts []*host // by slottable.HostID
	names map[string]slottable.HostID

	events        chan event
	exec          *executor
	written       map[scheduler.LeaseID]string // the saved form last committed, by live lease
	hostsWritten  map[string]string
	revs          map[scheduler.LeaseID]scheduler.Revision // of the leases as last committed
	forgotten     []scheduler.LeaseID                      // to delete from the store at the next commit
	over          map[scheduler.LeaseID]overSummary        // finished leases, out of the scheduler (finished.go)
	tally         overTally                                // of the finished leases, for the counters (finished.go)
	leaving       []scheduler.LeaseID                      // finished leases committed in their last form, to release
	rewrite       map[scheduler.LeaseID][]byte             // finished leases' compact records to commit (from older stores)
	finishedSince int                                      // leases finished since the store's size was last looked at
	started       time.Time                                // on the daemon's clock
	emu           *emulation
	work          *workers           // the goroutines besides the executor's (workers.go)
	power         *powerMgr          // power driver, meter and energy controller (energy*.go, power*.go)
	unknown       []drivers.VMStatus // VMs the driver runs that bora does not know (reported, never killed)
	restoreActs   []scheduler.Action // decided while restoring (VMs a repair stopped), enacted by startup
	errs          map[scheduler.LeaseID][]string
	capacity      capacityCheck     // capacity.go
	admission     admitter          // submit.go: nil admits every request
	adm           *admissionStage   // admission.go: the admission stage's controller; nil without admission.policy
	avail         *hostAvailability // availability.go: the hosts' estimates
	src           leaseSource       // the driver, when its users create leases (intake.go); nil otherwise
	calls         sourceCalls       // what to tell the lease source once committed (sourcecalls.go)

	mu     sync.Mutex // guards health and closed
	health error
	closed bool
	done   chan struct{}

	simQuiet   time.Duration
	lastChange time.Time // wall time of the last pass that changed something (simulated clock)
}

// host is what the daemon keeps of a host beside the slot table.
type host struct {
	Name    string  `json:"name"`
	CPU     int64   `json:"cpu"`    // hundredths of a core
	Memory  int64   `json:"memory"` // MB
	Enabled bool    `json:"enabled"`
	Up      bool    `json:"up"`
	Power   string  `json:"power"`
	Energy  float64 `json:"energy_kwh"`
	Retired bool    `json:"retired,omitempty"` // no longer in the config or the driver
	// IdleSince is when the host, on, last held a reservation or came on:
	// the energy controller's grace period counts from there.
	IdleSince time.Time `json:"idle_since,omitzero"`
	// PowerError is the power driver's last failure to switch the host,
	// until a switch works.
	PowerError string `json:"power_error,omitempty"`
}

// New opens the store, builds the clock and the driver, and restores the
// scheduler from the store (or starts an empty one). Run starts it.
func New(ctx context.Context, o Options) (*Daemon, error) {
	lg := o.Log
	if lg == nil {
		lg = logrus.New()
	}
	reg := o.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	d := &Daemon{cfg: o.Config, path: o.ConfigPath, lg: lg, log: lg.WithField("component", "daemon"),
		reg: reg, names: map[string]slottable.HostID{}, simQuiet: max(o.SimQuiet, 2*time.Millisecond), events: make(chan event, 4096),
		work:    newWorkers(),
		written: map[scheduler.LeaseID]string{}, hostsWritten: map[string]string{}, revs: map[scheduler.LeaseID]scheduler.Revision{}, errs: map[scheduler.LeaseID][]string{}, done: make(chan struct{}),
		over: map[scheduler.LeaseID]overSummary{}, rewrite: map[scheduler.LeaseID][]byte{}}
	st, err := store.Open(o.Config.Daemon.Store, store.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the state store: %w", err)
	}
	saved, err := loadChecked(st)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("opening the state store: %w", err)
	}
	d.store = st
	if err := d.setup(ctx, o, saved); err != nil {
		d.work.cancel()
		st.Close()
		if d.drv != nil && o.Driver == nil {
			d.drv.Close()
		}
		return nil, err
	}
	return d, nil
}

// loadChecked reads the whole store and checks every record
// (checkRecords); a damaged one refuses the start with how to recover.
func loadChecked(st *store.Store) (*store.State, error) {
	saved, err := st.Load()
	if err == nil {
		err = checkRecords(saved)
	}
	if err != nil {
		return nil, refuseRecords(st.Path(), err)
	}
	return saved, nil
}

func (d *Daemon) setup(ctx context.Context, o Options, saved *store.State) error {
	if err := d.setupClock(saved); err != nil {
		return err
	}
	var err error
	d.drv = o.Driver
	if d.drv == nil {
		if d.drv, err = d.buildDriver(ctx); err != nil {
			return err
		}
	}
	d.src, _ = d.drv.(leaseSource) // intake.go
	if err := d.restore(ctx, saved); err != nil {
		return err
	}
	if d.power, err = newPowerMgr(d); err != nil {
		return fmt.Errorf("power management: %w", err)
	}
	if err := d.setupAdmission(saved); err != nil { // admission.go
		return err
	}
	d.m = newMetrics(d.reg)
	d.exec = newExecutor(d)
	if d.emu, err = newEmulation(d, saved); err != nil {
		return err
	}
	return nil
}

// buildDriver makes the driver the config names.
func (d *Daemon) buildDriver(ctx context.Context) (drivers.Driver, error) {
	c := d.cfg
	switch c.Driver.Name {
	case "fake":
		fc := fake.Config{Overheads: c.Scheduler.Overheads, StateFile: c.Driver.Fake.StateFile, Boot: c.Driver.Fake.Boot}
		if fc.StateFile == "" {
			fc.StateFile = c.Daemon.Store + ".fake.json"
		}
		for _, h := range c.Hosts {
			fc.Hosts = append(fc.Hosts, fake.HostSpec{Name: h.Name, CPU: int64(h.CPU * 100), Memory: h.Memory})
		}
		for _, f := range c.Driver.Fake.Faults {
			fc.Faults = append(fc.Faults, fake.Fault{Op: f.Op, Lease: f.Lease, Host: f.Host, Times: f.Times,
				Fail: f.Fail, Slow: f.Slow, After: f.After})
		}
		return built(fake.New(fc, d.clk, d.lg.WithField("component", "driver")))
	case "libvirt":
		return built(libvirt.New(ctx, c.Driver.Libvirt, d.lg.WithField("component", "driver")))
	case "opennebula":
		return built(opennebula.New(ctx, c.Driver.OpenNebula, d.lg.WithField("component", "driver")))
	}
	return nil, fmt.Errorf("driver.name: %w: %q", errNoDriver, c.Driver.Name)
}

// built is what a driver constructor returned, as a drivers.Driver that
// is nil when it failed: a nil *fake.Driver in a non-nil interface would
// be closed by New's cleanup and panic.
func built[D drivers.Driver](drv D, err error) (drivers.Driver, error) {
	if err != nil {
		return nil, err
	}
	return drv, nil
}

var errNoDriver = errors.New("driver not built into this borad")

// setupClock builds the clock; scaled and simulated clocks carry on from
// what the store remembers.
func (d *Daemon) setupClock(saved *store.State) error {
	c := d.cfg.Daemon
	start := time.Now()
	if c.Start != "" {
		start, _ = time.Parse(time.RFC3339, c.Start)
	}
	var meta clockMeta
	if err := getMeta(saved, metaClock, &meta); err != nil {
		return err
	}
	switch c.Clock {
	case "real":
		d.clk = clock.Real{}
	case "scaled":
		if !meta.Wall.IsZero() && meta.Speed == c.Speed {
			// The cluster's time ran on while the daemon was down.
			d.clk = &clock.Scaled{Base: meta.Base, Wall: meta.Wall, Speed: c.Speed}
		} else {
			if !meta.Last.IsZero() {
				start = meta.Last
			}
			d.clk = clock.NewScaled(start, c.Speed)
		}
	case "simulated":
		if !meta.Last.IsZero() {
			start = meta.Last
		}
		d.clk = clock.NewSim(start)
	}
	return nil
}

// clockMeta is what the store keeps of the clock.
type clockMeta struct {
	Base  time.Time `json:"base"`
	Wall  time.Time `json:"wall"`
	Speed float64   `json:"speed"`
	Last  time.Time `json:"last"` // the last time the loop committed
}

func (d *Daemon) clockMeta() clockMeta {
	m := clockMeta{Last: d.clk.Now()}
	if s, ok := d.clk.(*clock.Scaled); ok {
		m.Base, m.Wall, m.Speed = s.Base, s.Wall, s.Speed
	}
	return m
}

// Now is the daemon's time.
func (d *Daemon) Now() time.Time { return d.clk.Now() }

// Close releases the store and the driver; Run calls it when it returns.
func (d *Daemon) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.work.cancel() // Run has waited for them; without Run, boots New resumed
	err := d.store.Close()
	if d.drv != nil {
		err = errors.Join(err, d.drv.Close())
	}
	return err
}

// Store is the daemon's state store (for tests and tools).
func (d *Daemon) Store() *store.Store { return d.store }

// Registry is where the daemon's metrics are.
func (d *Daemon) Registry() *prometheus.Registry { return d.reg }

func relPath(base, p string) string {
	if p == "" || filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(filepath.Dir(base), p)
}
