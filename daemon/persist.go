package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
	"github.com/bora-sched/bora/store"
)

// Meta keys in the store.
const (
	metaScheduler = "scheduler" // scheduler.SavedState
	metaClock     = "clock"     // clockMeta
	metaEmulation = "emulation" // emulationMeta
	metaIntake    = "intake"    // intakeMeta: the calls to the lease source not made yet (sourcecalls.go)
	// metaAdmission (admission.go): the admission controller's snapshot.
)

// storedHost is a host record: its slot-table ID keeps reservations on
// the right host across restarts.
type storedHost struct {
	ID slottable.HostID `json:"id"`
	host
}

func getMeta(s *store.State, key string, v any) error {
	data, ok := s.Meta[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("state store: meta %q is damaged: %w", key, err)
	}
	return nil
}

// restore rebuilds the hosts, the slot table and the scheduler from the
// store, with the hosts the driver reports now.
func (d *Daemon) restore(ctx context.Context, saved *store.State) error {
	if err := d.loadHosts(ctx, saved); err != nil {
		return err
	}
	d.table = slottable.New()
	for _, h := range d.hosts {
		if _, err := d.table.AddHost(h.Name, slottable.Resources{h.CPU, h.Memory}); err != nil {
			return fmt.Errorf("host %s: %w", h.Name, err)
		}
	}
	var st scheduler.SavedState
	if err := getMeta(saved, metaScheduler, &st); err != nil {
		return err
	}
	if err := d.calls.load(saved); err != nil { // sourcecalls.go
		return err
	}
	leases, err := d.splitLeases(saved)
	if err != nil {
		return err
	}
	d.finishedSince = compactEvery // finished.go: look at the file's size at the first pass
	cfg := d.cfg.Scheduler
	if len(saved.Leases) == 0 {
		d.sched, err = scheduler.New(cfg, d.table, Epoch, newSchedLog(d.log))
	} else {
		d.sched, err = d.restoreScheduler(cfg, st, leases)
	}
	if err != nil {
		return fmt.Errorf("restoring the scheduler from the store: %w", err)
	}
	now := d.clk.Now()
	// Leases whose plan was to begin while the daemon was down start now
	// (scheduler/late.go), before anything advances the scheduler.
	var last clockMeta // when the daemon last committed: it was up until then
	if err := getMeta(saved, metaClock, &last); err != nil {
		return err
	}
	d.logChanges(d.sched.CatchUp(last.Last, now), "the lease's planned start passed while the daemon was down: it starts late")
	for i, h := range d.hosts {
		if !h.Enabled || h.Retired {
			if _, err := d.sched.SetHostEnabled(now, slottable.HostID(i), false); err != nil {
				return err
			}
		}
	}
	d.loadAvailability(saved) // availability.go
	d.log.WithField("leases", len(saved.Leases)).WithField("live", len(d.written)).
		WithField("hosts", len(d.hosts)).Info("state restored")
	return nil
}

// errStrictRestore explains how to recover when a strict restore refuses a
// stored state that would put a host over capacity.
var errStrictRestore = errors.New("the stored plan would put a host over capacity; to start anyway, run borad " +
	"without --strict-restore (and with daemon.strict_restore false): it keeps what fits, plans the leases in the way " +
	"again and logs each one")

// restoreScheduler rebuilds the scheduler from the stored leases. A state
// that would put a host over capacity is planned again where it must
// (scheduler.RestoreReplanning), each lease changed logged at warning
// level, unless daemon.strict_restore refuses it.
func (d *Daemon) restoreScheduler(cfg scheduler.Config, st scheduler.SavedState, leases []scheduler.SavedLease) (*scheduler.Scheduler, error) {
	if d.cfg.Daemon.StrictRestore {
		s, err := scheduler.Restore(cfg, d.table, Epoch, st, leases, newSchedLog(d.log))
		if errors.Is(err, slottable.ErrOverCapacity) {
			return nil, fmt.Errorf("%w: %w", err, errStrictRestore)
		}
		return s, err
	}
	s, changes, err := scheduler.RestoreReplanning(cfg, d.table, Epoch, st, leases, newSchedLog(d.log))
	if err != nil {
		return nil, err
	}
	d.table = s.Table()
	d.restoreActs = s.TakeActions() // VMs the repair stopped
	d.logChanges(changes, "the lease's stored plan overbooked a host")
	return s, nil
}

// logChanges logs, at warning level, each lease the scheduler changed on
// its own at a restart.
func (d *Daemon) logChanges(changes []scheduler.Change, msg string) {
	for _, c := range changes {
		d.log.WithField("lease_id", c.Lease).WithField("reason", string(c.Reason)).WithField("detail", c.Detail).Warn(msg)
	}
}

// splitLeases decodes the stored leases: finished ones (compact records,
// or terminal leases with nothing planned in an older store's form, which
// the next commit rewrites compactly) go to d.over, the others are
// returned for the scheduler.
func (d *Daemon) splitLeases(saved *store.State) ([]scheduler.SavedLease, error) {
	leases := make([]scheduler.SavedLease, 0)
	for id, data := range saved.Leases {
		l, over, err := decodeOver(data)
		if err != nil {
			return nil, fmt.Errorf("state store: lease %d is damaged: %w", id, err)
		}
		if over {
			d.addOver(l)
			continue
		}
		var sl scheduler.SavedLease
		if err := json.Unmarshal(data, &sl); err != nil {
			return nil, fmt.Errorf("state store: lease %d is damaged: %w", id, err)
		}
		if sl.State.Terminal() && len(sl.Plan) == 0 {
			l := sl.Lease
			if d.rewrite[id], err = encodeOver(&l); err != nil {
				return nil, fmt.Errorf("encoding lease %d: %w", id, err)
			}
			d.addOver(&l)
			continue
		}
		leases = append(leases, sl)
		d.written[sl.ID] = string(data) // a terminal one still has its shutdown to do
	}
	return leases, nil
}

// loadHosts merges the stored hosts (their IDs) with the driver's.
func (d *Daemon) loadHosts(ctx context.Context, saved *store.State) error {
	var stored []storedHost
	for name, data := range saved.Hosts {
		var h storedHost
		if err := json.Unmarshal(data, &h); err != nil {
			return fmt.Errorf("state store: host %q is damaged: %w", name, err)
		}
		stored = append(stored, h)
	}
	sort.Slice(stored, func(i, j int) bool { return stored[i].ID < stored[j].ID })
	for i, h := range stored {
		if int(h.ID) != i {
			return fmt.Errorf("state store: host ids are not 0..n-1 (host %q has %d)", h.Name, h.ID)
		}
		hh := h.host
		hh.Retired, hh.Up = true, false
		d.hosts = append(d.hosts, &hh)
		d.names[h.Name] = h.ID
	}
	found, err := d.drv.Hosts(ctx)
	if err != nil {
		return fmt.Errorf("asking the driver for its hosts: %w", err)
	}
	over := map[string]float64{}
	mem := map[string]int64{}
	for _, h := range d.cfg.Hosts {
		over[h.Name], mem[h.Name] = h.CPU, h.Memory
	}
	for _, f := range found {
		cpu, memory := f.CPU, f.Memory
		if c := over[f.Name]; c > 0 {
			cpu = int64(c * 100)
		}
		if m := mem[f.Name]; m > 0 {
			memory = m
		}
		if id, ok := d.names[f.Name]; ok {
			h := d.hosts[id]
			if h.CPU != cpu || h.Memory != memory {
				d.log.WithField("host", f.Name).Warnf("capacity changed from %s and %d MB to %s and %d MB; keeping the stored one until its reservations are over",
					scheduler.Cores(h.CPU), h.Memory, scheduler.Cores(cpu), memory)
			}
			h.Retired, h.Up = false, f.Up
			continue
		}
		d.names[f.Name] = slottable.HostID(len(d.hosts))
		d.hosts = append(d.hosts, &host{Name: f.Name, CPU: cpu, Memory: memory, Enabled: true, Up: f.Up, Power: "on"})
	}
	return nil
}

// commit writes every lease whose saved form changed, the hosts and the
// scheduler's state, in one transaction.
func (d *Daemon) commit(extra []scheduler.LeaseID, full, mutated bool) error {
	b := store.Batch{Leases: map[uint64][]byte{}, Meta: map[string][]byte{}, Hosts: map[string][]byte{}}
	keep := map[scheduler.LeaseID]string{}
	hostKeep := map[string]string{}
	var drop []scheduler.LeaseID
	revs := map[scheduler.LeaseID]scheduler.Revision{}
	check := func(id scheduler.LeaseID) error {
		l := d.sched.Lease(id)
		if l == nil {
			return nil
		}
		rev := l.Revision()
		if old, ok := d.revs[id]; ok && old == rev && !full {
			return nil // unchanged since it was last committed
		}
		revs[id] = rev
		if isOver(l) {
			data, err := encodeOver(l)
			if err != nil {
				return fmt.Errorf("encoding lease %d: %w", id, err)
			}
			b.Leases[id] = data
			drop = append(drop, id)
			return nil
		}
		sl, _ := d.sched.Save(id)
		data, err := json.Marshal(sl)
		if err != nil {
			return fmt.Errorf("encoding lease %d: %w", id, err)
		}
		if d.written[id] != string(data) {
			b.Leases[id] = data
		}
		keep[id] = string(data)
		return nil
	}
	for _, id := range extra {
		if _, ok := d.written[id]; !ok {
			if err := check(id); err != nil {
				return err
			}
		}
	}
	for id := range d.written {
		if err := check(id); err != nil {
			return err
		}
	}
	for i, h := range d.hosts {
		data, _ := json.Marshal(storedHost{ID: slottable.HostID(i), host: *h})
		if d.hostsWritten[h.Name] != string(data) {
			b.Hosts[h.Name] = data
			hostKeep[h.Name] = string(data)
		}
	}
	var err error
	if b.Meta[metaScheduler], err = json.Marshal(d.sched.State()); err != nil {
		return err
	}
	b.Meta[metaClock], _ = json.Marshal(d.clockMeta())
	if d.emu != nil {
		b.Meta[metaEmulation], _ = json.Marshal(d.emu.meta())
	}
	b.Meta[metaIntake], _ = json.Marshal(d.calls.meta())
	if err := d.adm.save(b.Meta); err != nil { // admission.go: when it changed
		return err
	}
	if data, ok := d.availabilityRecord(); ok { // availability.go
		b.Meta[metaAvailability], mutated = data, true
	}
	for id, data := range d.rewrite {
		if _, ok := b.Leases[id]; !ok {
			b.Leases[id] = data
		}
	}
	b.DeleteLeases = append(b.DeleteLeases, d.forgotten...)
	_, admChanged := b.Meta[metaAdmission]
	if !full && !mutated && !admChanged && len(b.Leases) == 0 && len(b.Hosts) == 0 && len(b.DeleteLeases) == 0 {
		return nil // a pass that only read: nothing to make durable
	}
	if err := d.store.Commit(b); err != nil {
		return err
	}
	d.forgotten = nil
	if admChanged {
		d.adm.dirty = false
	}
	if d.avail != nil {
		d.avail.dirty = false
	}
	clear(d.rewrite)
	for id, data := range keep {
		d.written[id] = data
	}
	for id, r := range revs {
		d.revs[id] = r
	}
	for _, id := range drop {
		delete(d.written, id)
		delete(d.revs, id)
		d.addOver(d.sched.Lease(id))
		d.leaving = append(d.leaving, id)
	}
	for n, data := range hostKeep {
		d.hostsWritten[n] = data
	}
	return nil
}

// rebuildScheduler restores the scheduler, with its leases and plans, under
// a new configuration; on error the running one is kept.
func (d *Daemon) rebuildScheduler(next config.Config) error {
	if err := next.Scheduler.Validate(); err != nil {
		return err
	}
	var leases []scheduler.SavedLease
	for _, l := range d.sched.Leases() {
		if sl, ok := d.sched.Save(l.ID); ok {
			leases = append(leases, sl)
		}
	}
	table := slottable.New()
	for i, h := range d.hosts {
		if _, err := table.AddHost(h.Name, slottable.Resources{h.CPU, h.Memory}); err != nil {
			return err
		}
		if d.table.Closed(slottable.HostID(i)) {
			_ = table.SetClosed(slottable.HostID(i), true)
		}
	}
	s, err := scheduler.Restore(next.Scheduler, table, Epoch, d.sched.State(), leases, newSchedLog(d.log))
	if err != nil {
		return err
	}
	d.sched, d.table = s, table
	d.power.attach() // energy.go
	return nil
}
