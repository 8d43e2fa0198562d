package slottable

import (
	"math"
	"testing"
	"time"
)

// TestNanos: Nanos keeps the order of times, saturating outside int64
// nanoseconds (the zero time, before 1678, after 2262): a <= b gives
// Nanos(a) <= Nanos(b), so a filter comparing them never leaves out an
// overlap (the scheduler's lazyHosts).
func TestNanos(t *testing.T) {
	lo, hi := time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)
	mid := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := []time.Time{
		{}, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), lo.Add(-1), lo, lo.Add(time.Second),
		time.Unix(0, -1), time.Unix(0, 0), mid, mid.Add(time.Nanosecond), time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC),
		hi.Add(-time.Second), hi, hi.Add(1), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i, a := range ts {
		for _, b := range ts[i:] {
			if Nanos(a) > Nanos(b) {
				t.Fatalf("%v <= %v but Nanos %d > %d", a, b, Nanos(a), Nanos(b))
			}
		}
	}
	if got := Nanos(mid); got != mid.UnixNano() {
		t.Fatalf("Nanos(%v) = %d, want %d", mid, got, mid.UnixNano())
	}
	if Nanos(time.Time{}) != math.MinInt64 || Nanos(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) != math.MaxInt64 {
		t.Fatal("not saturated outside the range")
	}
}
