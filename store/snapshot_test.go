package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSnapshotKeepsNewest: five snapshots a minute apart with keep 3
// leave the last three (t0+2m, +3m, +4m), each a sound store holding
// what the store held, and no temporary file.
func TestSnapshotKeepsNewest(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(seq(1, 50)...)})
	want := mustLoad(t, s)
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i := range 5 {
		if _, err := s.Snapshot(t0.Add(time.Duration(i)*time.Minute), 3, nil); err != nil {
			t.Fatal(err)
		}
	}
	snaps, err := Snapshots(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots, want 3: %v", len(snaps), snaps)
	}
	for i, sn := range snaps {
		if wantT := t0.Add(time.Duration(i+2) * time.Minute); !sn.Time.Equal(wantT) {
			t.Errorf("snapshot %d taken %s, want %s", i, sn.Time, wantT)
		}
		r, err := OpenReadOnly(sn.Path, Options{})
		if err != nil {
			t.Fatalf("snapshot %s: %v", sn.Path, err)
		}
		if d := diffState(mustLoad(t, r), want); d != "" {
			t.Errorf("snapshot %s: %s", sn.Path, d)
		}
		_ = r.Close()
	}
	entries, _ := os.ReadDir(SnapshotDir(s.Path()))
	if len(entries) != 3 {
		t.Errorf("snapshot directory holds %d files, want the 3 snapshots", len(entries))
	}
}

// TestSnapshotCheckFails: a snapshot that fails its check never gets a
// snapshot name, and its temporary file is removed.
func TestSnapshotCheckFails(t *testing.T) {
	s := openStore(t)
	bad := errors.New("bad copy")
	_, err := s.Snapshot(time.Now(), 3, func(string) error { return bad })
	if !errors.Is(err, bad) {
		t.Fatalf("Snapshot: %v, want %v", err, bad)
	}
	if entries, _ := os.ReadDir(SnapshotDir(s.Path())); len(entries) != 0 {
		t.Errorf("left %d files in the snapshot directory", len(entries))
	}
}

// TestRestore: a truncated store is replaced by the snapshot, kept aside
// as bora.db.damaged-TIME, and the restored store opens with the
// snapshot's 1,024-minus-102 leases.
func TestRestore(t *testing.T) {
	path := fullStore(t)
	s := openStoreAt(t, path)
	want := mustLoad(t, s)
	snap, err := s.Snapshot(time.Now(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	writeFile(t, path, data[:len(data)/2])
	now := time.Date(2026, 11, 24, 11, 5, 0, 0, time.UTC)
	aside, err := Restore(snap, path, now, 100*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if wantAside := path + ".damaged-20261124T110500Z"; aside != wantAside {
		t.Errorf("aside %s, want %s", aside, wantAside)
	}
	if kept, _ := os.ReadFile(aside); !bytes.Equal(kept, data[:len(data)/2]) {
		t.Errorf("the damaged file was not kept as it was")
	}
	r := openStoreAt(t, path)
	got := mustLoad(t, r)
	if d := diffState(got, want); d != "" || len(got.Leases) != 1024-102 {
		t.Errorf("restored store: %d leases, %s", len(got.Leases), d)
	}
}

// TestRestoreRefuses: no restore while a borad holds the store (its
// lock), nor from a damaged snapshot; the store is left as it was.
func TestRestoreRefuses(t *testing.T) {
	path := fullStore(t)
	s := openStoreAt(t, path)
	snap, err := s.Snapshot(time.Now(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if _, err := Restore(snap, path, time.Now(), 100*time.Millisecond, nil); !errors.Is(err, ErrLocked) {
		t.Errorf("Restore while open: %v, want %v", err, ErrLocked)
	}
	broken := filepath.Join(t.TempDir(), "broken.db")
	writeFile(t, broken, before[:len(before)/3])
	if _, err := Restore(broken, path, time.Now(), 100*time.Millisecond, nil); !errors.Is(err, ErrDamaged) {
		t.Errorf("Restore of a damaged snapshot: %v, want %v", err, ErrDamaged)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a refused restore changed the store")
	}
	if m, _ := filepath.Glob(path + ".*"); len(m) != 0 {
		t.Errorf("a refused restore left %v", m)
	}
}
