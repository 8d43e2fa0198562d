package gateway

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/bora-sched/bora/api"
)

// The gateway's lease map: one bbolt file of its own (not borad's store),
// with one bucket, leases, from the gateway lease id (8 bytes, big
// endian) to a Record as JSON. Every change is one bbolt transaction,
// synced before it returns: a Record the gateway answered with survives
// a kill -9.

var bucketLeases = []byte("gateway-leases")

// Try is one cluster the gateway sent a lease to, and what came of it.
type Try struct {
	At      time.Time `json:"at"`
	Cluster string    `json:"cluster"`
	// Outcome is "forwarded" (the cluster took the lease: its id is
	// the Record's ClusterID), "refused" (its admission stage said no:
	// Reason and Detail are the cluster's) or "unreachable" (it did not
	// answer: Detail says what failed).
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// The outcomes of a Try.
const (
	OutcomeForwarded   = "forwarded"
	OutcomeRefused     = "refused"
	OutcomeUnreachable = "unreachable"
)

// Record is what the gateway keeps of one of its leases.
type Record struct {
	ID        uint64    `json:"id"`
	User      string    `json:"user"`
	Submitted time.Time `json:"submitted"`
	// Cluster and ClusterID say where the lease is; Cluster is empty
	// while it is being forwarded and when every cluster refused it.
	Cluster   string `json:"cluster,omitempty"`
	ClusterID uint64 `json:"cluster_id,omitempty"`
	Tries     []Try  `json:"tries,omitempty"`
	// Last is the lease as the cluster last answered (the refusal when
	// every cluster refused it): what the gateway shows, in the state
	// unknown, while the cluster does not answer. Nil while forwarding.
	Last *api.Lease `json:"last,omitempty"`
}

// Map is the gateway's lease map. Its methods are safe for concurrent
// use (bbolt serialises the writes).
type Map struct{ db *bolt.DB }

// OpenMap opens (or creates) the map at path, waiting up to timeout for
// the file lock. It returns an error wrapping ErrStore for a bbolt file
// that is not a gateway map.
func OpenMap(path string, timeout time.Duration) (*Map, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("gateway store: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, FreelistType: bolt.FreelistArrayType})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%s: waited %v for the file lock (is another gateway running?): %w", path, timeout, ErrStore)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrStore, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketLeases) != nil {
			return nil
		}
		empty := true
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return fmt.Errorf("%s: a bbolt file without the %q bucket (not a gateway map; borad's store?): %w", path, bucketLeases, ErrStore)
		}
		_, err := tx.CreateBucket(bucketLeases)
		return err
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Map{db: db}, nil
}

// Close closes the file.
func (m *Map) Close() error { return m.db.Close() }

// New gives r the next lease id and stores it.
func (m *Map) New(r *Record) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLeases)
		id, err := b.NextSequence()
		if err != nil {
			return err
		}
		r.ID = id
		return put(b, r)
	})
}

// Put stores r under its id, replacing what was there.
func (m *Map) Put(r Record) error {
	return m.db.Update(func(tx *bolt.Tx) error { return put(tx.Bucket(bucketLeases), &r) })
}

func put(b *bolt.Bucket, r *Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return b.Put(key(r.ID), data)
}

// Get returns the record of id; ok is false when there is none.
func (m *Map) Get(id uint64) (r Record, ok bool, err error) {
	err = m.db.View(func(tx *bolt.Tx) error {
		data := tx.Bucket(bucketLeases).Get(key(id))
		if data == nil {
			return nil
		}
		ok = true
		return decode(data, &r)
	})
	return r, ok, err
}

// All returns every record, by id.
func (m *Map) All() ([]Record, error) {
	var out []Record
	err := m.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketLeases).ForEach(func(_, data []byte) error {
			var r Record
			if err := decode(data, &r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

func decode(data []byte, r *Record) error {
	if err := json.Unmarshal(data, r); err != nil {
		return fmt.Errorf("a lease record does not decode: %w: %w", ErrStore, err)
	}
	return nil
}

func key(id uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], id)
	return k[:]
}
