package store

import (
	"errors"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// Check runs bbolt's page-level consistency check and bora's own: the
// four buckets exist, the schema version is present and at most
// SchemaVersion, every lease and accounting key is 8 bytes, and every
// value is non-empty and not a nested bucket. It returns every problem
// found, joined with errors.Join, or nil when the store is sound;
// ErrClosed once the store is closed.
//
// Check runs in a read-write transaction that it rolls back, so that
// bbolt's check sees a freelist no commit changes meanwhile; commits wait
// for it.
func (s *Store) Check() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return fmt.Errorf("store: check: %w", ErrClosed)
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("store: check: %w", err)
	}
	defer func() { _ = tx.Rollback() }()

	problems := append(boltCheck(tx), checkLayout(tx)...)
	if err := errors.Join(problems...); err != nil {
		return fmt.Errorf("store: check %s: %w", s.path, err)
	}
	return nil
}

// maxBoltProblems is how many of bbolt's problems boltCheck keeps: a
// damaged page can yield thousands.
const maxBoltProblems = 10

// boltCheck runs bbolt's page-level check (tx.Check) and returns its
// first maxBoltProblems problems, and a count of the others.
func boltCheck(tx *bolt.Tx) []error {
	var problems []error
	n := 0
	for err := range tx.Check() { // read to the end: the check's goroutine sends until done
		if n++; n <= maxBoltProblems {
			problems = append(problems, fmt.Errorf("bbolt: %w", err))
		}
	}
	if n > maxBoltProblems {
		problems = append(problems, fmt.Errorf("bbolt: %d more problems", n-maxBoltProblems))
	}
	return problems
}

// checkLayout returns bora's problems with the buckets of tx.
func checkLayout(tx *bolt.Tx) []error {
	var problems []error
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return append(problems, fmt.Errorf("no %q bucket", bucketMeta))
	}
	raw := meta.Get(keySchema)
	if v, err := strconv.Atoi(string(raw)); err != nil || v < 1 || v > SchemaVersion {
		problems = append(problems, fmt.Errorf("schema %q is not a version in 1..%d", raw, SchemaVersion))
	}
	known := map[string]bool{}
	for _, want := range []struct {
		name   []byte
		keyLen int // 0 = any
	}{{bucketMeta, 0}, {bucketLeases, 8}, {bucketHosts, 0}, {bucketAccounting, 8}} {
		known[string(want.name)] = true
		b := tx.Bucket(want.name)
		if b == nil {
			problems = append(problems, fmt.Errorf("no %q bucket", want.name))
			continue
		}
		problems = append(problems, checkBucket(string(want.name), b, want.keyLen)...)
	}
	_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if !known[string(name)] {
			problems = append(problems, fmt.Errorf("unexpected bucket %q", name))
		}
		return nil
	})
	return problems
}

// checkBucket returns the problems of the entries of one bucket; keyLen
// > 0 is the length every key must have.
func checkBucket(name string, b *bolt.Bucket, keyLen int) []error {
	var problems []error
	_ = b.ForEach(func(k, v []byte) error {
		switch {
		case keyLen > 0 && len(k) != keyLen:
			problems = append(problems, fmt.Errorf("%s: key %x is %d bytes, want %d", name, k, len(k), keyLen))
		case v == nil:
			problems = append(problems, fmt.Errorf("%s: key %x is a nested bucket", name, k))
		case len(v) == 0:
			problems = append(problems, fmt.Errorf("%s: key %x has an empty value", name, k))
		}
		return nil
	})
	return problems
}
