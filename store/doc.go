// Package store is bora's durable state: one bbolt file that the daemon
// reopens after a restart or a crash.
//
// The store does not know what a lease is. The daemon encodes its own
// records (JSON) and the store keeps them as opaque, non-empty byte values
// in four top-level buckets:
//
//	meta        string keys -> values: scheduler counters, clock origin,
//	            id sequence ...; plus the reserved key "schema", the store
//	            layout version as decimal text ("1"), written on creation.
//	leases      lease id as 8-byte big-endian uint64 -> lease record, so a
//	            cursor walks leases in id order.
//	hosts       host name -> host record.
//	accounting  time as 8-byte big-endian uint64 unix nanoseconds ->
//	            periodic accounting snapshot; append-only, one key per
//	            instant (a collision is moved 1ns later).
//
// # Schema versioning
//
// SchemaVersion is the layout this code writes. Open refuses a file whose
// schema is newer (ErrSchemaTooNew: an older borad must not rewrite a
// newer one's state) and a file that is not a bora store at all
// (ErrNotStore); a missing or bucket-less bbolt file becomes a new store.
//
// # Damage
//
// Open refuses a damaged file (ErrDamaged) instead of crashing on it:
// bbolt maps the file and trusts its page ids and offsets, so before
// bbolt sees it Open walks the whole file with plain reads (verify.go),
// then runs bbolt's consistency check and bora's (Check); a panic or
// memory fault in bbolt becomes ErrDamaged. An empty (0-byte) file is
// damage, not a new store. Every refusal names the file and says how to
// recover (RecoveryHint). Snapshot writes checked copies into a
// snapshots directory beside the store, Restore puts one back (the
// daemon stopped), CheckFile checks a file without writing to it. A change to the layout bumps SchemaVersion, and Open
// migrates older files inside one transaction.
//
// Load returns meta, leases and hosts as one State (the daemon's restart
// path); accounting is read by time range with Accounting.
//
// # Atomicity and durability
//
// A Batch is the unit of change: Commit applies all of it in one bbolt
// read-write transaction, fsynced before Commit returns, or none of it.
// "Committed before enacted" is the daemon's rule, not the store's: the
// daemon commits the plan it is about to enact (and the counters that go
// with it) in one Batch, and only then calls the drivers, so that a
// crash never leaves an enacted action that the next start does not know
// about.
//
// Only one process may hold the file: bbolt takes an exclusive flock,
// and a second Open waits Options.Timeout and then fails with ErrLocked.
//
// # Maintenance
//
// Compact rewrites the file without free pages, Usage tells how much of
// the file holds data (so a caller can decide to compact), Backup streams
// a consistent copy, and Check runs bbolt's page-level check plus bora's
// own invariants (schema valid, lease keys 8 bytes, values non-empty).
package store
