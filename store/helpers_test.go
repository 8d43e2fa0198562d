package store

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openStore opens a new store in tb.TempDir(). At cleanup it closes the
// store, reopens the file and requires Check to pass, so every test also
// checks the invariants of what it left on disk.
func openStore(tb testing.TB) *Store {
	tb.Helper()
	return openStoreAt(tb, filepath.Join(tb.TempDir(), "bora.db"))
}

// openStoreAt is openStore at a given path.
func openStoreAt(tb testing.TB, path string) *Store {
	tb.Helper()
	s, err := Open(path, Options{Timeout: time.Second})
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { closeAndCheck(tb, s) })
	return s
}

// closeAndCheck closes s, reopens its file and checks it.
func closeAndCheck(tb testing.TB, s *Store) {
	tb.Helper()
	if err := s.Close(); err != nil {
		tb.Errorf("Close: %v", err)
	}
	again, err := Open(s.Path(), Options{Timeout: time.Second})
	if err != nil {
		tb.Errorf("reopen for check: %v", err)
		return
	}
	defer func() { _ = again.Close() }()
	if err := again.Check(); err != nil {
		tb.Errorf("Check at cleanup: %v", err)
	}
}

// openUnchecked opens a store that the test is going to break; only
// Close is registered at cleanup.
func openUnchecked(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "bora.db"), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// rawUpdate edits s's file behind the store's back (to corrupt it).
func rawUpdate(t *testing.T, s *Store, fn func(*bolt.Tx) error) {
	t.Helper()
	if err := s.db.Update(fn); err != nil {
		t.Fatalf("raw update: %v", err)
	}
}

// writeBolt creates a plain bbolt file at path and runs fn in it.
func writeBolt(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatalf("bolt.Open: %v", err)
	}
	defer func() { _ = db.Close() }()
	if err := db.Update(fn); err != nil {
		t.Fatalf("bolt update: %v", err)
	}
}

// leaseValue is the record the tests store for lease id: what the daemon
// would write, JSON.
func leaseValue(id uint64) []byte {
	return fmt.Appendf(nil, `{"id":%d,"vms":4,"state":"scheduled"}`, id)
}

// leases is a lease map for ids, valued by leaseValue.
func leases(ids ...uint64) map[uint64][]byte {
	m := make(map[uint64][]byte, len(ids))
	for _, id := range ids {
		m[id] = leaseValue(id)
	}
	return m
}

// seq is the ids from..to inclusive.
func seq(from, to uint64) []uint64 {
	var ids []uint64
	for id := from; id <= to; id++ {
		ids = append(ids, id)
	}
	return ids
}

// mustCommit commits b or fails the test.
func mustCommit(tb testing.TB, s *Store, b Batch) {
	tb.Helper()
	if err := s.Commit(b); err != nil {
		tb.Fatalf("Commit: %v", err)
	}
}

// mustLoad loads s or fails the test.
func mustLoad(tb testing.TB, s *Store) *State {
	tb.Helper()
	st, err := s.Load()
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return st
}

// diffState describes how got differs from want, "" when equal.
func diffState(got, want *State) string {
	eq := func(a, b []byte) bool { return string(a) == string(b) }
	switch {
	case got.Schema != want.Schema:
		return fmt.Sprintf("schema %d, want %d", got.Schema, want.Schema)
	case !maps.EqualFunc(got.Leases, want.Leases, eq):
		return fmt.Sprintf("leases %v, want %v", keys(got.Leases), keys(want.Leases))
	case !maps.EqualFunc(got.Hosts, want.Hosts, eq):
		return fmt.Sprintf("hosts %q, want %q", got.Hosts, want.Hosts)
	case !maps.EqualFunc(got.Meta, want.Meta, eq):
		return fmt.Sprintf("meta %q, want %q", got.Meta, want.Meta)
	}
	return ""
}

// keys is m's keys in order.
func keys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

// wantErr reports whether err matches want (nil = no error expected).
func wantErr(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}
