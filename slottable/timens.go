package slottable

import (
	"math"
	"time"
)

// Internally every time is an int64 of nanoseconds since the Unix epoch.
// The zero time.Time and times before about 1678 map to negInf; times after
// about 2262 map to posInf.
const (
	negInf = math.MinInt64
	posInf = math.MaxInt64
)

// maxUnixSec is the largest number of seconds whose nanoseconds fit.
const maxUnixSec = math.MaxInt64/int64(time.Second) - 1

// Nanos is the table's key for t: nanoseconds since the Unix epoch,
// saturated as above. It keeps the order of times (ties only at the
// saturated ends), so callers can compare plain ints where they would
// compare times.
func Nanos(t time.Time) int64 { return toNS(t) }

// toNS converts a time to the internal key, saturating out of range.
func toNS(t time.Time) int64 {
	if t.IsZero() {
		return negInf
	}
	s := t.Unix()
	switch {
	case s >= maxUnixSec:
		return posInf
	case s <= -maxUnixSec:
		return negInf
	}
	return t.UnixNano()
}

// fromNS converts an internal key back to a time in loc.
func fromNS(ns int64, loc *time.Location) time.Time {
	return time.Unix(0, ns).In(loc)
}

// addSat returns a+b for b >= 0, saturating at posInf.
func addSat(a, b int64) int64 {
	if a > posInf-b {
		return posInf
	}
	return a + b
}

// nilNode is the null index in every node pool.
const nilNode int32 = -1
