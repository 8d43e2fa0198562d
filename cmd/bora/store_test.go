package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// runBora runs a command line that needs no daemon.
func runBora(args ...string) result {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	return result{code, out.String(), errOut.String()}
}

// storeWithLeases writes a store of one host (1 core, 1024 MB) and three
// queued leases of one VM, lease 2 asking for cpu (hundredths of a
// core) per VM; it returns the store's path.
func storeWithLeases(t *testing.T, cpu int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bora.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := store.Batch{Leases: map[uint64][]byte{},
		Hosts: map[string][]byte{"h1": []byte(`{"id":0,"name":"h1","cpu":100,"memory":1024,"enabled":true,"up":true,"power":"on"}`)}}
	for id := uint64(1); id <= 3; id++ {
		l := scheduler.SavedLease{Lease: scheduler.Lease{ID: scheduler.LeaseID(id), State: scheduler.Queued,
			Req: scheduler.Request{Kind: scheduler.BestEffort, VMs: 1, CPU: 100, Memory: 512, Duration: time.Hour,
				Class: scheduler.Suspendable, Origin: scheduler.External}}}
		if id == 2 {
			l.Req.CPU = cpu
		}
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Leases[id] = data
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStoreCheck: store check says what it checked of a sound store
// (exit 0), and refuses a truncated store, a lease of 9 cores on 1-core
// hosts (exit 7, the reason and how to recover) and a missing file (2).
func TestStoreCheck(t *testing.T) {
	sound := storeWithLeases(t, 100)
	r := runBora("store", "check", sound)
	r.check(t, exitOK, sound+": ok", "schema:    1", "leases:    3 records decode (3 not over", "hosts:     1 records", "snapshots: none")

	cfg := filepath.Join(t.TempDir(), "bora.yaml")
	writeFile(t, cfg, "daemon: {store: "+sound+"}\nhosts: [{name: h1, cpu: 1, memory: 1024}]\n")
	runBora("store", "check", "--config", cfg).check(t, exitOK, sound+": ok")

	truncated := storeWithLeases(t, 100)
	data, _ := os.ReadFile(truncated)
	writeFile(t, truncated, string(data[:len(data)/2]))
	r = runBora("store", "check", truncated)
	r.check(t, exitDamaged)
	if !strings.Contains(r.stderr, truncated+": store file is damaged") || !strings.Contains(r.stderr, "to recover") {
		t.Errorf("stderr: %s", r.stderr)
	}

	big := storeWithLeases(t, 900)
	r = runBora("store", "check", big)
	r.check(t, exitDamaged)
	if !strings.Contains(r.stderr, "lease 2: cpu, memory: a VM of 9 cores and 512 MB fits on no host") {
		t.Errorf("stderr: %s", r.stderr)
	}
	runBora("store", "check", filepath.Join(t.TempDir(), "none.db")).check(t, exitUsage)
}

// TestStoreRestore: restore refuses while the store is open (a running
// borad holds its lock: exit 8), then replaces a damaged store with the
// snapshot and keeps the damaged file aside.
func TestStoreRestore(t *testing.T) {
	path := storeWithLeases(t, 100)
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(time.Now(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := runBora("store", "restore", snap, "--store", path)
	r.check(t, exitBusy)
	if !strings.Contains(r.stderr, "stop it first") {
		t.Errorf("stderr: %s", r.stderr)
	}
	_ = s.Close()
	writeFile(t, path, "")
	runBora("store", "check", path).check(t, exitDamaged)
	r = runBora("store", "restore", snap, "--store", path)
	r.check(t, exitOK, path+": restored from "+snap, "kept as "+path+".damaged-")
	runBora("store", "check", path).check(t, exitOK, "leases:    3 records")
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 1 {
		t.Errorf("damaged files kept: %v, want 1", aside)
	}
}
