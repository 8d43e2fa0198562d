package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout version this package writes and reads.
const SchemaVersion = 1

// Default option values, used when a field of Options is zero.
const (
	DefaultTimeout = time.Second
	DefaultMode    = os.FileMode(0o600)
	dirMode        = os.FileMode(0o750)

	// lockPoll is how often bbolt retries the file lock. bbolt gives up
	// once less than one poll is left of its timeout, so Open hands it
	// Timeout+lockPoll to wait at least Timeout.
	lockPoll = 50 * time.Millisecond
)

// Bucket names and the reserved meta key.
var (
	bucketMeta       = []byte("meta")
	bucketLeases     = []byte("leases")
	bucketHosts      = []byte("hosts")
	bucketAccounting = []byte("accounting")
	keySchema        = []byte("schema")

	// dataBuckets are created next to meta when a store is made.
	dataBuckets = [][]byte{bucketLeases, bucketHosts, bucketAccounting}
)

// Options for Open.
type Options struct {
	Timeout time.Duration // waiting for the file lock (another borad holds it); 0 = 1s
	Mode    os.FileMode   // file mode when created; 0 = 0600
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Mode == 0 {
		o.Mode = DefaultMode
	}
	return o
}

func (o Options) bolt() *bolt.Options {
	// bbolt's safe defaults: fsync on every commit, freelist synced,
	// grow synced. Only the lock timeout differs.
	return &bolt.Options{Timeout: o.Timeout + lockPoll, FreelistType: bolt.FreelistArrayType}
}

// Store is an open bora store. Its methods are safe for concurrent use;
// Compact and Close wait for the calls in progress.
type Store struct {
	path string
	opts Options

	mu sync.RWMutex // guards db: RLock for use, Lock to swap or close it
	db *bolt.DB     // nil once closed
}

// Open opens the store at path, creating the parent directory (0750) and
// the file if needed; a new file gets the four buckets and the schema
// version. Only a missing file is new: an existing file, even an empty
// one, must be a sound store.
//
// Before bbolt sees an existing file, Open walks it with plain reads
// (verifyFile), so that a damaged file is refused instead of crashing
// the process; then it runs bbolt's consistency check and bora's own
// (Check) and the schema check. A panic in bbolt while it opens or
// checks the file becomes an error too.
//
// Open returns ErrLocked when another process holds the file longer than
// o.Timeout, ErrDamaged when the file is damaged, ErrNotStore when it is
// not a bora store, and ErrSchemaTooNew when it was written by a newer
// bora. All are wrapped with the path; the last three also say how to
// recover (RecoveryHint).
func Open(path string, o Options) (*Store, error) {
	return open(path, o, false)
}

// open is Open; readOnly opens without writing anything (no creation, no
// missing buckets added) under a shared lock.
func open(path string, o Options, readOnly bool) (*Store, error) {
	o = o.withDefaults()
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	exists, err := precheck(path, o.Timeout)
	if err != nil {
		return nil, refusal(path, err)
	}
	if readOnly && !exists {
		return nil, fmt.Errorf("store: %s: %w", path, os.ErrNotExist)
	}
	bo := o.bolt()
	bo.ReadOnly = readOnly
	var db *bolt.DB
	err = guard("opening", func() error {
		var err error
		db, err = bolt.Open(path, o.Mode, bo)
		return err
	})
	if err != nil {
		return nil, refusal(path, openError(err))
	}
	if exists {
		err = guard("checking", func() error { return db.View(verifyTx) })
	}
	switch {
	case err != nil:
	case readOnly:
		err = db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketMeta) == nil {
				return fmt.Errorf("%w: a bbolt file without buckets (a store whose creation never finished)", ErrNotStore)
			}
			return nil
		})
	default:
		err = guard("preparing", func() error {
			if db.View(complete) == nil {
				return nil // nothing to write: a refused file stays as it was
			}
			return db.Update(prepare)
		})
	}
	if err != nil {
		_ = db.Close()
		return nil, refusal(path, err)
	}
	return &Store{path: path, opts: o, db: db}, nil
}

// openError maps bbolt's Open errors to the package's sentinels.
func openError(err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%w (waited for the file lock: is another borad running?)", ErrLocked)
	case errors.Is(err, berrors.ErrInvalid),
		errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrChecksum):
		return fmt.Errorf("%w: %w", ErrNotStore, err)
	}
	return err
}

// prepare makes a new file a store, or adds what a store of an older
// layout lacks. Future migrations go here; verifyTx has checked the file.
//
// A bbolt file without any bucket counts as new, not as foreign: it holds
// nothing to protect, and it is what a crash between bbolt creating the
// file and the first commit leaves behind.
func prepare(tx *bolt.Tx) error {
	if tx.Bucket(bucketMeta) == nil {
		if !isEmpty(tx) {
			return fmt.Errorf("%w: no %q bucket", ErrNotStore, bucketMeta)
		}
		return create(tx)
	}
	for _, name := range dataBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// complete returns nil when tx has every bucket of a store, so prepare
// has nothing to do.
func complete(tx *bolt.Tx) error {
	for _, name := range append([][]byte{bucketMeta}, dataBuckets...) {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("no %q bucket", name)
		}
	}
	return nil
}

// verifyTx checks an existing file as Open finds it: bbolt's consistency
// check, then the schema version, then bora's layout (checkLayout).
func verifyTx(tx *bolt.Tx) error {
	if err := errors.Join(boltCheck(tx)...); err != nil {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if isEmpty(tx) {
			return nil
		}
		return fmt.Errorf("%w: no %q bucket", ErrNotStore, bucketMeta)
	}
	v, err := schemaOf(meta)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w: file has schema %d, this bora reads up to %d", ErrSchemaTooNew, v, SchemaVersion)
	}
	if err := errors.Join(checkLayout(tx)...); err != nil {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return nil
}

// isEmpty tells whether the file has no top-level bucket at all.
func isEmpty(tx *bolt.Tx) bool {
	k, _ := tx.Cursor().First()
	return k == nil
}

// create writes the buckets and the schema version of a new store.
func create(tx *bolt.Tx) error {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(keySchema, []byte(strconv.Itoa(SchemaVersion))); err != nil {
		return err
	}
	for _, name := range dataBuckets {
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	return nil
}

// schemaOf reads the schema version from the meta bucket; a missing or
// unreadable version means the file is not a store.
func schemaOf(meta *bolt.Bucket) (int, error) {
	raw := meta.Get(keySchema)
	if raw == nil {
		return 0, fmt.Errorf("%w: meta has no %q key", ErrNotStore, keySchema)
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%w: schema %q is not a version", ErrNotStore, raw)
	}
	return v, nil
}

// Close closes the file and releases its lock. Closing a closed store
// returns nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	if err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// view runs fn in a read-only transaction; ErrClosed once closed.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return ErrClosed
	}
	return s.db.View(fn)
}

// update runs fn in a read-write transaction, committed and fsynced when
// fn returns nil, rolled back otherwise; ErrClosed once closed.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return ErrClosed
	}
	return s.db.Update(fn)
}
