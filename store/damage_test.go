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

// fullStore writes a closed store of 1,024 leases (and a few hosts) to
// a new file and returns its path. A second commit deletes every tenth
// lease, so the file has free pages and a freelist worth damaging.
func fullStore(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "bora.db")
	s, err := Open(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	mustCommit(tb, s, Batch{Leases: leases(seq(1, 1024)...),
		Hosts: map[string][]byte{"node1": []byte(`{"id":0}`), "node2": []byte(`{"id":1}`)},
		Meta:  map[string][]byte{"scheduler": []byte(`{"next_id":1025}`)}})
	var gone []uint64
	for id := uint64(10); id <= 1024; id += 10 {
		gone = append(gone, id)
	}
	mustCommit(tb, s, Batch{DeleteLeases: gone})
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// leasesRoot is the page size and the root page of the leases bucket of
// the store at path.
func leasesRoot(t *testing.T, path string) (pageSize int, root uint64) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket(bucketLeases).Root())
		return nil
	})
	return db.Info().PageSize, root
}

// TestOpenRefusesDamage: each damage the issue found (and a few more) is
// refused by Open with ErrDamaged (or ErrNotStore, ErrSchemaTooNew), an
// error naming the file and saying how to recover, the file untouched,
// and no panic. Before the file walk, half a file crashed the process
// (SIGSEGV, or bbolt's "invalid freelist page" panic), flipped bits and a
// zeroed page made bbolt assert, and 0 bytes became an empty store.
func TestOpenRefusesDamage(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string, data []byte) []byte
		want   error
	}{
		{"truncated to half", func(_ *testing.T, _ string, b []byte) []byte { return b[:len(b)/2] }, ErrDamaged},
		{"truncated to one page", func(_ *testing.T, _ string, b []byte) []byte { return b[:4096] }, ErrDamaged},
		{"0 bytes", func(_ *testing.T, _ string, _ []byte) []byte { return nil }, ErrDamaged},
		{"100 flipped bits", func(_ *testing.T, _ string, b []byte) []byte {
			rng := rand.New(rand.NewPCG(100, 1)) // seed 100,1: hits pages that bbolt asserts on
			for range 100 {
				i := rng.IntN(len(b) * 8)
				b[i/8] ^= 1 << (i % 8)
			}
			return b
		}, ErrDamaged},
		{"zeroed page", func(t *testing.T, path string, b []byte) []byte {
			ps, root := leasesRoot(t, path)
			clear(b[root*uint64(ps) : (root+1)*uint64(ps)])
			return b
		}, ErrDamaged},
		{"garbage", func(_ *testing.T, _ string, b []byte) []byte {
			rng := rand.New(rand.NewPCG(7, 7))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			return b
		}, ErrNotStore},
		{"garbage behind sound headers", func(_ *testing.T, _ string, b []byte) []byte {
			rng := rand.New(rand.NewPCG(8, 8))
			for i := 2 * 4096; i < len(b); i++ {
				b[i] = byte(rng.Uint32())
			}
			return b
		}, ErrDamaged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fullStore(t)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, c.damage(t, path, data))
			requireRefused(t, path, c.want)
		})
	}
}

// TestOpenRefusesLayout: files bbolt reads well but that are not the
// layout this bora wrote are refused with how to recover: a newer
// schema, a missing leases bucket (its leases silently gone otherwise).
func TestOpenRefusesLayout(t *testing.T) {
	cases := []struct {
		name string
		edit func(tx *bolt.Tx) error
		want error
	}{
		{"schema 2", func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("2")) }, ErrSchemaTooNew},
		{"schema x", func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("x")) }, ErrNotStore},
		{"no leases bucket", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketLeases) }, ErrDamaged},
		{"empty lease value", func(tx *bolt.Tx) error { return tx.Bucket(bucketLeases).Put(leaseKey(3), []byte{}) }, ErrDamaged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fullStore(t)
			writeBolt(t, path, c.edit)
			requireRefused(t, path, c.want)
		})
	}
}

// requireRefused opens the store at path and requires the refusal want,
// with the path and the way to recover in the message, and the file as
// it was.
func requireRefused(t *testing.T, path string, want error) {
	t.Helper()
	before, _ := os.ReadFile(path)
	s, err := Open(path, Options{})
	if err == nil {
		_ = s.Close()
		t.Fatalf("Open succeeded on a damaged file, want %v", want)
	}
	msg := err.Error()
	if !errors.Is(err, want) || !strings.Contains(msg, path) || !strings.Contains(msg, "to recover") {
		t.Errorf("Open: %v\nwant %v naming %s and saying how to recover", err, want, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the refused file was modified")
	}
	if err := CheckFile(path); !errors.Is(err, want) {
		t.Errorf("CheckFile: %v, want %v", err, want)
	}
}

// TestRecoveryHintNamesNewestSnapshot: the refusal names the newest
// snapshot for `bora store restore`.
func TestRecoveryHintNamesNewestSnapshot(t *testing.T) {
	path := fullStore(t)
	s := openStoreAt(t, path)
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		if _, err := s.Snapshot(t0.Add(time.Duration(i)*time.Hour), 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(filepath.Dir(path), "snapshots", "bora-20261124T120000.000Z.db") // t0 + 2h
	if got := RecoveryHint(path); !strings.Contains(got, "bora store restore "+want+"`") {
		t.Errorf("hint %q does not name %s", got, want)
	}
}
