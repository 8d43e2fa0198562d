package store

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen: Open on any bytes returns a store or an error, never panics
// or faults; a store it returns loads and checks. Seeds: a small sound
// store, its halves, and a few shapes of nonsense. Run it with
// go test ./store -run '^$' -fuzz FuzzOpen -fuzztime 1m.
func FuzzOpen(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.db")
	s, err := Open(path, Options{})
	if err != nil {
		f.Fatal(err)
	}
	mustCommit(f, s, Batch{Leases: leases(seq(1, 40)...), Hosts: map[string][]byte{"n": []byte("h")}})
	mustCommit(f, s, Batch{DeleteLeases: []uint64{3, 5}})
	_ = s.Close()
	sound, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sound)
	f.Add(sound[:len(sound)/2])
	f.Add(sound[:8192])
	f.Add([]byte{})
	f.Add([]byte("leases: []\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.db")
		_ = os.Remove(p)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p, Options{})
		if err != nil {
			return
		}
		defer s.Close()
		if _, err := s.Load(); err != nil {
			t.Errorf("Load after a successful Open: %v", err)
		}
		if err := s.Check(); err != nil {
			t.Errorf("Check after a successful Open: %v", err)
		}
	})
}
