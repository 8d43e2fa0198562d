package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestOpenCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "var", "lib", "bora")
	path := filepath.Join(dir, "bora.db")
	s := openStoreAt(t, path)

	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	for _, c := range []struct {
		name string
		path string
		want os.FileMode
	}{
		{"parent dir", dir, 0o750 | os.ModeDir},
		{"file", path, 0o600},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The umask can only take bits away; 0750 and 0600 survive the usual 022/027.
		if fi.Mode() != c.want {
			t.Errorf("%s mode = %v, want %v", c.name, fi.Mode(), c.want)
		}
	}
	st := mustLoad(t, s)
	want := &State{Schema: SchemaVersion}
	want.Leases, want.Hosts, want.Meta = map[uint64][]byte{}, map[string][]byte{}, map[string][]byte{}
	if d := diffState(st, want); d != "" {
		t.Errorf("new store: %s", d)
	}
}

func TestOpenMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bora.db")
	s, err := Open(path, Options{Mode: 0o640})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAndCheck(t, s) })
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
}

// TestOpenAdoptsEmptyFile: a bbolt file without buckets becomes a store:
// it is what a crash during the very first Open leaves; refusing it would
// keep borad from ever starting again. (A zero-length file is refused:
// see TestOpenRefusesDamage.)
func TestOpenAdoptsEmptyFile(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"bbolt without buckets", func(t *testing.T, path string) {
			writeBolt(t, path, func(*bolt.Tx) error { return nil })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bora.db")
			c.setup(t, path)
			s := openStoreAt(t, path)
			if st := mustLoad(t, s); st.Schema != SchemaVersion {
				t.Errorf("schema %d, want %d", st.Schema, SchemaVersion)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 16<<10)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	withMeta := func(schema []byte) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket(bucketMeta)
				if err != nil || schema == nil {
					return err
				}
				return b.Put(keySchema, schema)
			})
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  error
	}{
		{"random bytes", func(t *testing.T, path string) { writeFile(t, path, noise) }, ErrNotStore},
		{"text file", func(t *testing.T, path string) { writeFile(t, path, []byte("leases: []\n")) }, ErrNotStore},
		{"bbolt with other buckets", func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
		}, ErrNotStore},
		{"meta without schema", withMeta(nil), ErrNotStore},
		{"schema not a number", withMeta([]byte("one")), ErrNotStore},
		{"schema 0", withMeta([]byte("0")), ErrNotStore},
		{"schema 99", withMeta([]byte("99")), ErrSchemaTooNew},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bora.db")
			c.setup(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want %v", c.want)
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v, want %v naming %s", err, c.want, path)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("refused file was modified")
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLocked(t *testing.T) {
	s := openStore(t)
	start := time.Now()
	second, err := Open(s.Path(), Options{Timeout: 50 * time.Millisecond})
	if err == nil {
		_ = second.Close()
		t.Fatal("second Open succeeded while the first holds the lock")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("second Open: %v, want ErrLocked naming the path", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %v, want >= 50ms", waited)
	}
	// The first store is unaffected.
	mustCommit(t, s, Batch{Leases: leases(1)})
}

func TestReopenKeepsEverything(t *testing.T) {
	s := openStore(t)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mustCommit(t, s, Batch{
		Leases: leases(1, 2, 3),
		Hosts:  map[string][]byte{"node1": []byte(`{"cpu":800}`), "node2": []byte(`{"cpu":1600}`)},
		Meta:   map[string][]byte{"next_lease_id": []byte("4"), "clock_origin": []byte("2026-03-01T12:00:00Z")},
	})
	mustCommit(t, s, Batch{DeleteLeases: []uint64{2}, DeleteHosts: []string{"node2"}})
	if err := s.AppendAccounting(at, []byte(`{"used":3}`)); err != nil {
		t.Fatal(err)
	}
	want := mustLoad(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	again := openStoreAt(t, s.Path())
	if d := diffState(mustLoad(t, again), want); d != "" {
		t.Errorf("after reopen: %s", d)
	}
	recs, err := again.Accounting(at, at.Add(time.Second))
	if err != nil || len(recs) != 1 || string(recs[0].Data) != `{"used":3}` {
		t.Errorf("accounting after reopen = %v, %v; want the one snapshot", recs, err)
	}
}

func TestClosed(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(1)})
	want := mustLoad(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1e9, 0)
	calls := []struct {
		name string
		call func() error
	}{
		{"Commit", func() error { return s.Commit(Batch{Leases: leases(2), DeleteLeases: []uint64{1}}) }},
		{"Commit empty", func() error { return s.Commit(Batch{}) }},
		{"Load", func() error { _, err := s.Load(); return err }},
		{"Lease", func() error { _, err := s.Lease(1); return err }},
		{"Counts", func() error { _, _, err := s.Counts(); return err }},
		{"AppendAccounting", func() error { return s.AppendAccounting(now, []byte("x")) }},
		{"Accounting", func() error { _, err := s.Accounting(now, now); return err }},
		{"PruneAccounting", func() error { _, err := s.PruneAccounting(now); return err }},
		{"Compact", s.Compact},
		{"Backup", func() error { _, err := s.Backup(&bytes.Buffer{}); return err }},
		{"Check", s.Check},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", c.name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	// The refused Commit changed nothing on disk.
	again := openStoreAt(t, s.Path())
	if d := diffState(mustLoad(t, again), want); d != "" {
		t.Errorf("after refused commit: %s", d)
	}
}
