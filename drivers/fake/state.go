package fake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// stateVersion is the version of the state file's layout.
const stateVersion = 1

// stateDoc is what the state file holds.
type stateDoc struct {
	Version   int           `json:"version"`
	HostsDown []string      `json:"hosts_down,omitempty"`
	VMs       []vmRecord    `json:"vms"`
	RunTimes  []limitRecord `json:"run_times,omitempty"`
}

// vmRecord is one VM in the state file. Run is the time it ran before
// Since; Since, when set, is the clock time it last started running.
type vmRecord struct {
	Name   string        `json:"name"`
	Host   string        `json:"host"`
	State  drivers.State `json:"state"`
	CPU    int64         `json:"cpu,omitempty"`
	Memory int64         `json:"memory,omitempty"`
	Detail string        `json:"detail,omitempty"`
	Run    time.Duration `json:"run_ns"`
	Since  time.Time     `json:"since,omitzero"`
}

// limitRecord is one SetRunTime.
type limitRecord struct {
	Lease uint64        `json:"lease"`
	Run   time.Duration `json:"run_ns"`
}

// persistLocked writes the state file, if any: to a temporary file in
// the same directory, synced, then renamed over the old one.
func (d *Driver) persistLocked() error {
	if d.stateFile == "" {
		return nil
	}
	doc := stateDoc{Version: stateVersion, VMs: []vmRecord{}}
	for _, name := range d.order {
		if !d.hosts[name].up {
			doc.HostsDown = append(doc.HostsDown, name)
		}
	}
	for _, v := range d.sortedLocked() {
		doc.VMs = append(doc.VMs, vmRecord{
			Name: v.name, Host: v.host, State: v.state, CPU: v.cpu, Memory: v.memory,
			Detail: v.detail, Run: v.run, Since: v.since,
		})
	}
	for lease, run := range d.limits {
		doc.RunTimes = append(doc.RunTimes, limitRecord{Lease: lease, Run: run})
	}
	slices.SortFunc(doc.RunTimes, func(a, b limitRecord) int {
		return cmp.Compare(a.Lease, b.Lease)
	})
	data, err := json.Marshal(doc) // not indented: it is rewritten at every operation
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return writeAtomic(d.stateFile, append(data, '\n'))
}

// writeAtomic replaces path with data: write a temporary file, fsync,
// rename, fsync the directory.
func writeAtomic(path string, data []byte) error {
	dir, tmp := filepath.Dir(path), path+".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write state: %w", err)
	}
	if dirf, err := os.Open(dir); err == nil {
		dirf.Sync() // best effort: not every file system syncs directories
		dirf.Close()
	}
	return nil
}

// load reads the state file, if it exists. VMs on hosts the
// configuration no longer has are dropped with a warning; a VM that was
// running continues to count its run time from when it last started
// (or from now, if that is in the clock's future).
func (d *Driver) load(now time.Time) error {
	data, err := os.ReadFile(d.stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("the file is empty (%d bytes); move it away to start with no VMs", len(data))
	}
	var doc stateDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("decode: %w; move the file away to start with no VMs", err)
	}
	if doc.Version != stateVersion {
		return fmt.Errorf("version %d, want %d", doc.Version, stateVersion)
	}
	for _, name := range doc.HostsDown {
		if h := d.hosts[name]; h != nil {
			h.up = false
		} else {
			d.log.WithField("host", name).Warn("fake state: down host no longer configured")
		}
	}
	for i, r := range doc.VMs {
		if err := d.loadVM(r, now); err != nil {
			return fmt.Errorf("vms[%d]: %w", i, err)
		}
	}
	for _, l := range doc.RunTimes {
		if l.Run > 0 {
			d.limits[l.Lease] = l.Run
		}
	}
	return nil
}

// loadVM restores one VM record.
func (d *Driver) loadVM(r vmRecord, now time.Time) error {
	switch r.State {
	case drivers.Running, drivers.Paused, drivers.Saved, drivers.Stopped:
	default:
		return fmt.Errorf("%s: unknown state %q", r.Name, r.State)
	}
	if r.Name == "" {
		return errors.New("name: required")
	}
	if _, ok := d.hosts[r.Host]; !ok {
		d.log.WithFields(logrus.Fields{"vm": r.Name, "host": r.Host}).Warn("fake state: VM on a host no longer configured, dropped")
		return nil
	}
	lease, index, ok := drivers.ParseName(r.Name)
	v := &vm{
		name: r.Name, lease: lease, index: index, bora: ok,
		host: r.Host, state: r.State, cpu: r.CPU, memory: r.Memory,
		detail: r.Detail, run: r.Run,
	}
	if r.State == drivers.Running {
		v.since = r.Since
		if v.since.IsZero() || v.since.After(now) {
			v.since = now
		}
	}
	d.vms[r.Name] = v
	return nil
}
