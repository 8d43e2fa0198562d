package store

import "errors"

// Sentinel errors. Functions wrap them with the path, key or id involved;
// test with errors.Is.
var (
	// ErrNotFound is returned by Lease when no lease has the id.
	ErrNotFound = errors.New("not found")

	// ErrSchemaTooNew is returned by Open when the file was written by a
	// newer bora whose schema version is above SchemaVersion.
	ErrSchemaTooNew = errors.New("store schema is newer than this bora")

	// ErrNotStore is returned by Open when the file is not a bora store:
	// not a bbolt file at all, or a bbolt file without bora's meta bucket
	// or with an unreadable schema version.
	ErrNotStore = errors.New("not a bora store")

	// ErrDamaged is returned by Open, CheckFile and Restore when the file
	// is a damaged store: empty (0 bytes), truncated, with pages that
	// bbolt's or bora's consistency check refuses, or that made bbolt
	// panic.
	ErrDamaged = errors.New("store file is damaged")

	// ErrLocked is returned by Open when another process (usually another
	// borad) holds the file's lock for longer than Options.Timeout.
	ErrLocked = errors.New("store is locked by another process")

	// ErrClosed is returned by every method except Close and Path once the
	// store is closed, or after a Compact whose reopen failed.
	ErrClosed = errors.New("store is closed")

	// ErrInvalid is returned by Commit and AppendAccounting when asked to
	// store something the layout does not allow: an empty value, an empty
	// host or meta key, the reserved meta key "schema", a lease both put
	// and deleted in one Batch, or a time outside 1970..2262.
	ErrInvalid = errors.New("invalid store input")
)
