package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Record is one accounting snapshot.
type Record struct {
	At   time.Time // UTC; 1ns after the asked time per earlier collision
	Data []byte
}

// The instants an accounting key can hold: unix nanoseconds in an int64
// that is not negative, 1970-01-01 to 2262-04-11.
var (
	minAccounting = time.Unix(0, 0)
	maxAccounting = time.Unix(0, math.MaxInt64)
)

// AppendAccounting stores one snapshot at time at. The key is at in unix
// nanoseconds; when a snapshot already holds that instant, the next free
// nanosecond is used, so a snapshot is never overwritten.
//
// AppendAccounting returns ErrInvalid for empty data or a time outside
// 1970..2262, ErrClosed once the store is closed.
func (s *Store) AppendAccounting(at time.Time, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("store: accounting: %w: empty value", ErrInvalid)
	}
	if at.Before(minAccounting) || at.After(maxAccounting) {
		return fmt.Errorf("store: accounting: %w: time %s outside 1970..2262", ErrInvalid, at)
	}
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAccounting)
		n := uint64(at.UnixNano())
		for b.Get(timeKey(n)) != nil {
			if n == math.MaxInt64 {
				return fmt.Errorf("%w: no free instant at or after %s", ErrInvalid, at)
			}
			n++
		}
		return b.Put(timeKey(n), data)
	})
	if err != nil {
		return fmt.Errorf("store: accounting: %w", err)
	}
	return nil
}

// Accounting returns the snapshots with from <= At < to, in time order;
// ErrClosed once the store is closed.
func (s *Store) Accounting(from, to time.Time) ([]Record, error) {
	var out []Record
	lo, hi := clampKey(from), clampKey(to)
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAccounting).Cursor()
		for k, v := c.Seek(lo); k != nil && bytes.Compare(k, hi) < 0; k, v = c.Next() {
			if len(k) != 8 {
				return fmt.Errorf("accounting key %x is %d bytes, want 8", k, len(k))
			}
			at := time.Unix(0, int64(binary.BigEndian.Uint64(k))).UTC()
			out = append(out, Record{At: at, Data: bytes.Clone(v)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: accounting: %w", err)
	}
	return out, nil
}

// PruneAccounting deletes the snapshots before the given time and returns
// how many it deleted; ErrClosed once the store is closed.
func (s *Store) PruneAccounting(before time.Time) (int, error) {
	n := 0
	hi := clampKey(before)
	err := s.update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAccounting).Cursor()
		// Delete at the front until the first key at or after hi: the
		// cursor is re-seated each time, so no key is skipped.
		for k, _ := c.First(); k != nil && bytes.Compare(k, hi) < 0; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune accounting: %w", err)
	}
	return n, nil
}

// timeKey is the big-endian key of unix nanoseconds n.
func timeKey(n uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), n)
}

// clampKey is the key bounding a range at t: times before 1970 bound at
// the first key, times after 2262 after the last one.
func clampKey(t time.Time) []byte {
	switch {
	case t.Before(minAccounting):
		return timeKey(0)
	case t.After(maxAccounting):
		return []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	return timeKey(uint64(t.UnixNano()))
}
