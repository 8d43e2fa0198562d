package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// compactTxSize bounds the memory Compact uses: it commits the new file
// every this many bytes of keys and values.
const compactTxSize = 64 << 20

// Compact rewrites the file without its free pages: it copies every
// bucket into path+".compact", fsyncs it, renames it over path, fsyncs
// the directory and reopens. Calls made meanwhile wait; afterwards the
// store holds the same state in a file no larger than before.
//
// If anything fails before the rename, the old file stays in use and the
// temporary file is removed. If the reopen after the rename fails, the
// store is closed and later calls return ErrClosed. Compact returns
// ErrClosed once the store is closed.
func (s *Store) Compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return fmt.Errorf("store: compact: %w", ErrClosed)
	}
	tmp := s.path + ".compact"
	if err := s.compactInto(tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: compact %s: %w", s.path, err)
	}
	// The rename happens with the old file still open and locked, so a
	// reader never sees path without a complete store behind it.
	if err := os.Rename(tmp, s.path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: compact %s: %w", s.path, err)
	}
	syncErr := syncDir(filepath.Dir(s.path))
	closeErr := s.db.Close()
	s.db = nil
	db, err := bolt.Open(s.path, s.opts.Mode, s.opts.bolt())
	if err != nil {
		return fmt.Errorf("store: compact: reopen %s: %w", s.path, openError(err))
	}
	s.db = db
	if err := errors.Join(syncErr, closeErr); err != nil {
		return fmt.Errorf("store: compact %s: %w", s.path, err)
	}
	return nil
}

// compactInto writes a compacted copy of the store to path, fsynced.
func (s *Store) compactInto(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err // a leftover of a crashed Compact that cannot go
	}
	dst, err := bolt.Open(path, s.opts.Mode, s.opts.bolt())
	if err != nil {
		return err
	}
	// bbolt.Compact commits with fsync, so dst is durable when it returns.
	if err := bolt.Compact(dst, s.db, compactTxSize); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// Backup writes a consistent copy of the store to w, from one read-only
// transaction, and returns the bytes written. Commits are not held up.
// The copy is a bbolt file that Open accepts. Backup returns ErrClosed
// once the store is closed.
func (s *Store) Backup(w io.Writer) (int64, error) {
	var n int64
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("store: backup: %w", err)
	}
	return n, nil
}

// Usage is how much of the file holds data.
type Usage struct {
	File int64 // the file's size in bytes
	Data int64 // bytes of keys, values and page headers in use (a compacted file needs about this much)
}

// Usage returns the file's size and how much of it holds data: the
// rest is free pages (reused by later commits), the unused part of pages
// that records shrank in, and the room bbolt grows the file by ahead of
// need. It walks every page in use. ErrClosed once the store is closed.
func (s *Store) Usage() (Usage, error) {
	var u Usage
	err := s.view(func(tx *bolt.Tx) error {
		if err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			st := b.Stats()
			u.Data += int64(st.BranchInuse + st.LeafInuse + st.InlineBucketInuse)
			return nil
		}); err != nil {
			return err
		}
		fi, err := os.Stat(s.path)
		if err != nil {
			return err
		}
		u.File = fi.Size()
		return nil
	})
	if err != nil {
		return Usage{}, fmt.Errorf("store: usage: %w", err)
	}
	return u, nil
}
