package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Batch is one atomic change: everything in it is committed (fsync) or
// nothing. Deleting a lease or host that does not exist is not an error,
// so a Batch can be committed again after a crash.
type Batch struct {
	Leases       map[uint64][]byte // put
	DeleteLeases []uint64
	Hosts        map[string][]byte // put
	DeleteHosts  []string
	Meta         map[string][]byte // put (scheduler counters, clock origin, id sequence ...)
}

// leaseFill is the fill percent of the leases bucket's pages.
const leaseFill = 0.9

// Empty tells whether the Batch changes nothing.
func (b *Batch) Empty() bool {
	return len(b.Leases) == 0 && len(b.DeleteLeases) == 0 &&
		len(b.Hosts) == 0 && len(b.DeleteHosts) == 0 && len(b.Meta) == 0
}

// Commit applies b in one read-write transaction and fsyncs it before
// returning. On any error nothing of b is stored.
//
// Commit returns ErrInvalid for an empty value, an empty host or meta key,
// the reserved meta key "schema", or a lease or host both put and deleted
// in b; ErrClosed once the store is closed; and bbolt's errors (a key over
// bbolt.MaxKeySize, a full disk) wrapped. An empty Batch writes nothing.
func (s *Store) Commit(b Batch) error {
	var err error
	if b.Empty() {
		err = s.view(func(*bolt.Tx) error { return nil }) // only ErrClosed
	} else {
		err = s.update(func(tx *bolt.Tx) error { return apply(tx, &b) })
	}
	if err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// apply writes b into tx. It validates as it goes, so a bad part late in
// the Batch rolls back the parts written before it.
func apply(tx *bolt.Tx, b *Batch) error {
	leases, hosts, meta := tx.Bucket(bucketLeases), tx.Bucket(bucketHosts), tx.Bucket(bucketMeta)
	// Lease keys grow (ids are handed out in order) and a finished lease's
	// record no longer changes: pages filled to 90 % rather than bbolt's
	// 50 % hold twice the leases.
	leases.FillPercent = leaseFill
	for id, v := range b.Leases {
		if err := put(leases, leaseKey(id), v); err != nil {
			return fmt.Errorf("lease %d: %w", id, err)
		}
	}
	for _, id := range b.DeleteLeases {
		if _, ok := b.Leases[id]; ok {
			return fmt.Errorf("lease %d: %w: both put and deleted", id, ErrInvalid)
		}
		if err := leases.Delete(leaseKey(id)); err != nil {
			return fmt.Errorf("lease %d: %w", id, err)
		}
	}
	for name, v := range b.Hosts {
		if err := put(hosts, []byte(name), v); err != nil {
			return fmt.Errorf("host %q: %w", name, err)
		}
	}
	for _, name := range b.DeleteHosts {
		if _, ok := b.Hosts[name]; ok {
			return fmt.Errorf("host %q: %w: both put and deleted", name, ErrInvalid)
		}
		if name == "" {
			continue // no host has an empty name
		}
		if err := hosts.Delete([]byte(name)); err != nil {
			return fmt.Errorf("host %q: %w", name, err)
		}
	}
	for k, v := range b.Meta {
		if k == string(keySchema) {
			return fmt.Errorf("meta %q: %w: reserved key", k, ErrInvalid)
		}
		if err := put(meta, []byte(k), v); err != nil {
			return fmt.Errorf("meta %q: %w", k, err)
		}
	}
	return nil
}

// put stores one non-empty value under a non-empty key.
func put(b *bolt.Bucket, key, value []byte) error {
	switch {
	case len(key) == 0:
		return fmt.Errorf("%w: empty key", ErrInvalid)
	case len(value) == 0:
		return fmt.Errorf("%w: empty value", ErrInvalid)
	}
	return b.Put(key, value)
}

// leaseKey is the big-endian key of lease id.
func leaseKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), id)
}
