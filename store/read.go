package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// State is everything stored. Meta does not hold the reserved "schema"
// key: its value is Schema.
type State struct {
	Schema int
	Leases map[uint64][]byte
	Hosts  map[string][]byte
	Meta   map[string][]byte
}

// Load reads the whole store in one read-only transaction: a consistent
// snapshot. Values are copies the caller owns. The accounting bucket is
// not part of State: read it with Accounting.
//
// Load returns ErrClosed once the store is closed, and an error naming
// the key when a lease key is not 8 bytes (run Check).
func (s *Store) Load() (*State, error) {
	st := &State{
		Leases: make(map[uint64][]byte),
		Hosts:  make(map[string][]byte),
		Meta:   make(map[string][]byte),
	}
	err := s.view(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		v, err := schemaOf(meta)
		if err != nil {
			return err
		}
		st.Schema = v
		if err := meta.ForEach(func(k, v []byte) error {
			if !bytes.Equal(k, keySchema) {
				st.Meta[string(k)] = bytes.Clone(v)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketHosts).ForEach(func(k, v []byte) error {
			st.Hosts[string(k)] = bytes.Clone(v)
			return nil
		}); err != nil {
			return err
		}
		return tx.Bucket(bucketLeases).ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("lease key %x is %d bytes, want 8", k, len(k))
			}
			st.Leases[binary.BigEndian.Uint64(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: load: %w", err)
	}
	return st, nil
}

// Lease returns a copy of lease id's value: ErrNotFound when there is no
// such lease, ErrClosed once the store is closed.
func (s *Store) Lease(id uint64) ([]byte, error) {
	var out []byte
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketLeases).Get(leaseKey(id))
		if v == nil {
			return ErrNotFound
		}
		out = bytes.Clone(v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: lease %d: %w", id, err)
	}
	return out, nil
}

// Counts returns how many leases and hosts are stored, from one
// snapshot; ErrClosed once the store is closed.
func (s *Store) Counts() (leases, hosts int, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		leases = tx.Bucket(bucketLeases).Stats().KeyN
		hosts = tx.Bucket(bucketHosts).Stats().KeyN
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: counts: %w", err)
	}
	return leases, hosts, nil
}
