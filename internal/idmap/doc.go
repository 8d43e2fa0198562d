// Package idmap is a map from IDs that are handed out in order (leases')
// to values, held in a slice indexed by ID: a lookup is a bounds check
// and a load, not a hash. The scheduler and the slot table look leases up
// by ID millions of times in a contended simulation; their Go maps took
// 3 to 4 % of a ch.3 sweep's CPU.
//
// A deleted ID leaves an empty entry behind (for a pointer, 9 bytes per
// ID ever set). An ID far past the others (a snapshot from elsewhere, or
// a caller's own numbering) goes in an ordinary map instead, so that no ID
// can make the slice huge; once the slice grows past it, it moves in.
//
// It imports nothing from bora.
package idmap
