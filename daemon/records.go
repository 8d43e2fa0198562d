package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// maxRecordProblems is how many damaged records a refusal lists.
const maxRecordProblems = 10

// checkRecords decodes and validates every record of a loaded store, as
// a start must find them: each host record decodes; each meta record the
// daemon reads decodes; each lease record decodes, under its own id, and
// a lease that is not over asks for what the scheduler accepts of a new
// request (Request.Validate) and for VMs that fit on the largest stored
// host. A lease that is over is history: it only has to decode.
//
// It returns nil, or every problem (the first maxRecordProblems and a
// count of the rest) wrapped in store.ErrDamaged.
func checkRecords(st *store.State) error {
	var problems []error
	hosts := make([]storedHost, 0, len(st.Hosts))
	for _, name := range slices.Sorted(maps.Keys(st.Hosts)) {
		var h storedHost
		if err := json.Unmarshal(st.Hosts[name], &h); err != nil {
			problems = append(problems, fmt.Errorf("host %q: does not decode: %w", name, err))
			continue
		}
		hosts = append(hosts, h)
	}
	for key, v := range map[string]any{metaScheduler: &scheduler.SavedState{}, metaClock: &clockMeta{}, metaEmulation: &emulationMeta{}, metaIntake: &intakeMeta{}} {
		if err := getMeta(st, key, v); err != nil {
			problems = append(problems, fmt.Errorf("meta %q: does not decode: %w", key, errors.Unwrap(err)))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(st.Leases)) {
		if err := checkLease(id, st.Leases[id], hosts); err != nil {
			problems = append(problems, fmt.Errorf("lease %d: %w", id, err))
		}
	}
	if len(problems) > maxRecordProblems {
		more := len(problems) - maxRecordProblems
		problems = append(problems[:maxRecordProblems], fmt.Errorf("and %d more damaged records", more))
	}
	if err := errors.Join(problems...); err != nil {
		return fmt.Errorf("%w: %w", store.ErrDamaged, err)
	}
	return nil
}

// refuseRecords is the refusal of the store at path whose records are
// damaged (err, from Load or checkRecords), with how to recover.
func refuseRecords(path string, err error) error {
	return fmt.Errorf("store: %s: %w; %s", path, err, store.RecoveryHint(path))
}

// checkLease checks one lease record (see checkRecords).
func checkLease(id uint64, data []byte, hosts []storedHost) error {
	if l, over, err := decodeOver(data); err != nil {
		return fmt.Errorf("does not decode: %w", err)
	} else if over { // a finished lease's compact record (finished.go)
		if uint64(l.ID) != id {
			return fmt.Errorf("the record says it is lease %d", l.ID)
		}
		return nil
	}
	var sl scheduler.SavedLease
	if err := json.Unmarshal(data, &sl); err != nil {
		return fmt.Errorf("does not decode: %w", err)
	}
	if uint64(sl.ID) != id {
		return fmt.Errorf("the record says it is lease %d", sl.ID)
	}
	if sl.State.Terminal() {
		return nil
	}
	req := sl.Req
	if err := req.Validate(); err != nil {
		return err
	}
	if len(hosts) == 0 {
		return nil
	}
	var cpu, mem int64
	for _, h := range hosts {
		if h.CPU >= req.CPU && h.Memory >= req.Memory {
			return nil
		}
		cpu, mem = max(cpu, h.CPU), max(mem, h.Memory)
	}
	return fmt.Errorf("cpu, memory: a VM of %s and %d MB fits on no host (the largest have %s, %d MB)",
		cores(req.CPU), req.Memory, cores(cpu), mem)
}

// cores writes hundredths of a core as cores: 900 -> "9 cores",
// 100 -> "1 core", 150 -> "1.5 cores".
func cores(c int64) string {
	if c == 100 {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", float64(c)/100)
}

// StoreReport is what CheckStore found in a sound store.
type StoreReport struct {
	Path      string
	Schema    int
	Leases    int // records
	Live      int // of them, leases not over
	Hosts     int
	Meta      int // meta records
	Snapshots []store.SnapshotInfo
}

// CheckStore checks the store file at path without changing it, as
// borad's start does: the file (store.OpenReadOnly: the file walk,
// bbolt's consistency check, schema, layout) and then every record
// (decodes and validates). It fails like store.OpenReadOnly, or with
// store.ErrDamaged naming the damaged records.
func CheckStore(path string) (StoreReport, error) {
	r := StoreReport{Path: path}
	s, err := store.OpenReadOnly(path, store.Options{})
	if err != nil {
		return r, err
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil {
		return r, err
	}
	if err := checkRecords(st); err != nil {
		return r, refuseRecords(path, err)
	}
	r.Schema, r.Leases, r.Hosts, r.Meta = st.Schema, len(st.Leases), len(st.Hosts), len(st.Meta)
	for _, data := range st.Leases {
		var sl struct {
			State scheduler.State
			Over  bool `json:"over"`
		}
		if json.Unmarshal(data, &sl) == nil && !sl.Over && !sl.State.Terminal() {
			r.Live++
		}
	}
	r.Snapshots, err = store.Snapshots(path)
	return r, err
}

// checkSnapshot is the check a snapshot passes before it gets its name.
func checkSnapshot(path string) error {
	_, err := CheckStore(path)
	return err
}
