package opennebula

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Driver enacts bora's decisions on an OpenNebula cloud: each VM of a
// lease is an OpenNebula VM that the driver adopted (see Pending and
// Adopt). It implements drivers.Driver; Power returns its
// drivers.PowerDriver. Safe for concurrent use.
type Driver struct {
	cfg Config
	log *logrus.Entry
	one *one

	mu     sync.Mutex
	leases map[drivers.LeaseID][]int // lease -> OpenNebula VM id by index
	refs   map[int]vmRef             // OpenNebula VM id -> its lease VM
	watch  map[int]*watchState       // what the driver expects of each VM
	hosts  map[string]oneHost        // by name, from the last host poll
	hostUp map[int]bool              // last seen "up" per host id (for events)

	events    chan drivers.Event
	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

type vmRef struct {
	lease drivers.LeaseID
	index int
}

var (
	_ drivers.Driver      = (*Driver)(nil)
	_ drivers.PowerDriver = Power{}
)

// New validates cfg (zero fields take their defaults, see DefaultConfig),
// logs in to oned, reads back the VMs bora adopted before (their
// BORA_LEASE_ID and BORA_VM_INDEX) and the hosts, and starts the poller
// that delivers Events. log may be nil (the driver stays quiet).
//
// It returns an error matching ErrConfig for a bad configuration and
// ErrLogin (wrapping oca.ErrAuthentication, with oned's message) when oned
// refuses the credentials or does not answer.
func New(ctx context.Context, cfg Config, log *logrus.Entry) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	cr, err := credentials(cfg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		l := logrus.New()
		l.SetLevel(logrus.WarnLevel)
		log = logrus.NewEntry(l)
	}
	d := &Driver{
		cfg:    cfg,
		log:    log.WithField("component", "opennebula"),
		one:    dial(cfg.Endpoint, cr),
		leases: map[drivers.LeaseID][]int{},
		refs:   map[int]vmRef{},
		watch:  map[int]*watchState{},
		hosts:  map[string]oneHost{},
		hostUp: map[int]bool{},
		events: make(chan drivers.Event, 64),
		done:   make(chan struct{}),
	}
	hosts, err := d.refreshHosts(ctx)
	if err != nil {
		d.one.close()
		return nil, fmt.Errorf("%w at %s as %s: %w", ErrLogin, cfg.Endpoint, cr.User, err)
	}
	vms, err := d.one.vms(ctx, oca.PoolStateNotDone)
	if err != nil {
		d.one.close()
		return nil, fmt.Errorf("%w at %s as %s: %w", ErrLogin, cfg.Endpoint, cr.User, err)
	}
	adopted := d.learn(vms)
	for _, h := range hosts {
		d.hostUp[h.ID] = hostUp(h.State)
	}
	d.log.WithFields(logrus.Fields{"endpoint": cfg.Endpoint, "user": cr.User, "hosts": len(hosts),
		"adopted_vms": adopted, "config": cfg.String()}).Info("connected to opennebula")
	d.wg.Add(1)
	go d.poll()
	return d, nil
}

// learn records the adoption attributes found on vms (after a restart)
// and what each adopted VM is expected to be doing. It returns how many
// adopted VMs it saw.
func (d *Driver) learn(vms []*oneVM) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, v := range vms {
		lease, index, ok := v.leaseRef()
		if !ok {
			continue
		}
		n++
		d.record(lease, index, v.ID)
		if _, seen := d.watch[v.ID]; !seen {
			d.watch[v.ID] = &watchState{expect: expectFromState(v)}
		}
	}
	return n
}

// record maps lease VM (lease, index) to OpenNebula VM id; d.mu held.
func (d *Driver) record(lease drivers.LeaseID, index, id int) {
	ids := d.leases[lease]
	for len(ids) <= index {
		ids = append(ids, -1)
	}
	ids[index] = id
	d.leases[lease] = ids
	d.refs[id] = vmRef{lease, index}
}

// VMIDs are the OpenNebula VM ids of a lease, by index (for `bora lease
// show`); nil for a lease with no adopted VMs.
func (d *Driver) VMIDs(lease uint64) []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int(nil), d.leases[lease]...)
}

// vmID is the OpenNebula VM of a lease VM.
func (d *Driver) vmID(vm drivers.VM) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := d.leases[vm.Lease]
	if vm.Index < 0 || vm.Index >= len(ids) || ids[vm.Index] < 0 {
		return 0, fmt.Errorf("lease %d vm %d: %w", vm.Lease, vm.Index, ErrNotAdopted)
	}
	return ids[vm.Index], nil
}

// hostUp is whether a host in state st accepts VMs.
func hostUp(st oca.HostState) bool {
	return st == oca.HostMonitored || st == oca.HostMonitoringMonitored
}

// refreshHosts reads the host pool into the cache.
func (d *Driver) refreshHosts(ctx context.Context) ([]oneHost, error) {
	hosts, err := d.one.hosts(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[string]oneHost, len(hosts))
	for _, h := range hosts {
		m[h.Name] = h
	}
	d.mu.Lock()
	d.hosts = m
	d.mu.Unlock()
	return hosts, nil
}

// hostID finds a host by name, reading the pool again if it is not
// cached. Unknown names wrap drivers.ErrUnknownHost.
func (d *Driver) hostID(ctx context.Context, name string) (int, error) {
	d.mu.Lock()
	h, ok := d.hosts[name]
	d.mu.Unlock()
	if ok {
		return h.ID, nil
	}
	if _, err := d.refreshHosts(ctx); err != nil {
		return 0, fmt.Errorf("looking up host %q: %w", name, err)
	}
	d.mu.Lock()
	h, ok = d.hosts[name]
	d.mu.Unlock()
	if !ok {
		return 0, fmt.Errorf("host %q: %w", name, drivers.ErrUnknownHost)
	}
	return h.ID, nil
}

// Hosts lists OpenNebula's hosts (one.hostpool.info): CPU is MAX_CPU
// (hundredths of a core, as OpenNebula counts), Memory MAX_MEM in MB, Up
// when the host is MONITORED. Both are 0 for a host not monitored yet
// (INIT) and for one OFFLINE (Host::offline zeroes them): the daemon
// treats that as "no size known", not as a size.
func (d *Driver) Hosts(ctx context.Context) ([]drivers.Host, error) {
	hosts, err := d.refreshHosts(ctx)
	if err != nil {
		return nil, fmt.Errorf("opennebula: listing hosts: %w", err)
	}
	out := make([]drivers.Host, len(hosts))
	for i, h := range hosts {
		out[i] = drivers.Host{Name: h.Name, CPU: h.CPU, Memory: h.Memory, Up: hostUp(h.State)}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// List reports bora's VMs that are on a reachable host: every
// OpenNebula VM carrying BORA_LEASE_ID and BORA_VM_INDEX (so it survives a
// restart of borad), except those not placed yet (HOLD, PENDING), gone
// (DONE) or on a host that does not answer (UNKNOWN). States map as:
// RUNNING and the states on the way to it (PROLOG, BOOT*, MIGRATE,
// SAVE_MIGRATE, PROLOG_MIGRATE) and SAVE_SUSPEND -> Running; SUSPENDED,
// STOPPED and PROLOG_MIGRATE_SUSPEND -> Saved; POWEROFF, UNDEPLOYED,
// SHUTDOWN, EPILOG and the …_FAILURE states -> Stopped. Detail is
// OpenNebula's state ("ACTIVE/RUNNING", with the VM id).
func (d *Driver) List(ctx context.Context) ([]drivers.VMStatus, error) {
	vms, err := d.one.vms(ctx, oca.PoolStateNotDone)
	if err != nil {
		return nil, fmt.Errorf("opennebula: listing VMs: %w", err)
	}
	d.learn(vms)
	var out []drivers.VMStatus
	for _, v := range vms {
		lease, index, ok := v.leaseRef()
		if !ok {
			continue
		}
		st, show := listState(v)
		if !show {
			continue
		}
		detail := fmt.Sprintf("opennebula vm %d %s", v.ID, v.stateString())
		if v.Error != "" && (st == drivers.Stopped) {
			detail += ": " + v.Error
		}
		out = append(out, drivers.VMStatus{Lease: lease, Index: index, Host: v.Host, State: st, Detail: detail})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lease != out[j].Lease {
			return out[i].Lease < out[j].Lease
		}
		return out[i].Index < out[j].Index
	})
	return out, nil
}

func listState(v *oneVM) (drivers.State, bool) {
	switch v.State {
	case oca.Suspended, oca.Stopped:
		return drivers.Saved, true
	case oca.Poweroff, oca.Undeployed:
		return drivers.Stopped, true
	case oca.Active:
	default:
		return "", false
	}
	switch {
	case v.LCM == oca.Unknown:
		return "", false
	case v.LCM.IsFailure():
		return drivers.Stopped, true
	}
	switch v.LCM {
	case oca.PrologMigrateSuspend, oca.DiskSnapshotSuspended:
		return drivers.Saved, true
	case oca.Shutdown, oca.ShutdownPoweroff, oca.ShutdownUndeploy, oca.Epilog, oca.EpilogStop,
		oca.EpilogUndeploy, oca.CleanupDelete, oca.CleanupResubmit, oca.PrologMigratePoweroff:
		return drivers.Stopped, true
	}
	return drivers.Running, true
}

// Events delivers what the poller notices: a bora VM that went to DONE,
// POWEROFF, UNKNOWN or a …_FAILURE state without bora asking (VMExited
// for a guest that powered itself off, VMCrashed otherwise), and hosts
// going to ERROR (HostDown) and back (HostUp). Closed by Close.
func (d *Driver) Events() <-chan drivers.Event { return d.events }

// Close stops the poller, closes Events and releases the connection.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		close(d.done)
		d.wg.Wait()
		close(d.events)
		d.one.close()
		d.log.Info("opennebula driver closed")
	})
	return nil
}

func (d *Driver) closed() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// errClosedIf returns ErrClosed after Close.
func (d *Driver) errClosedIf() error {
	if d.closed() {
		return ErrClosed
	}
	return nil
}
