package store

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// t0 is an arbitrary origin for accounting times.
var t0 = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

// appendAll appends one snapshot per offset from t0, valued "s<i>".
func appendAll(t *testing.T, s *Store, offsets ...time.Duration) {
	t.Helper()
	for i, off := range offsets {
		if err := s.AppendAccounting(t0.Add(off), fmt.Appendf(nil, "s%d", i)); err != nil {
			t.Fatalf("AppendAccounting(+%v): %v", off, err)
		}
	}
}

// offsetsOf is the records' times as offsets from t0.
func offsetsOf(recs []Record) []time.Duration {
	out := make([]time.Duration, len(recs))
	for i, r := range recs {
		out[i] = r.At.Sub(t0)
	}
	return out
}

func TestAccountingRange(t *testing.T) {
	s := openStore(t)
	// Appended out of order; stored in time order.
	appendAll(t, s, 3*time.Minute, time.Minute, 0, 2*time.Minute, 5*time.Minute)
	cases := []struct {
		name     string
		from, to time.Time
		want     []time.Duration
	}{
		{"all", t0, t0.Add(time.Hour), []time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute, 5 * time.Minute}},
		// [1m, 3m): 1m and 2m; 3m is excluded by the half-open range.
		{"half open", t0.Add(time.Minute), t0.Add(3 * time.Minute), []time.Duration{time.Minute, 2 * time.Minute}},
		{"one instant", t0.Add(5 * time.Minute), t0.Add(5*time.Minute + 1), []time.Duration{5 * time.Minute}},
		{"empty range", t0.Add(time.Minute), t0.Add(time.Minute), nil},
		{"reversed range", t0.Add(time.Hour), t0, nil},
		{"before everything", t0.Add(-time.Hour), t0, nil},
		{"from before 1970", time.Unix(-100, 0), t0.Add(time.Minute), []time.Duration{0}},
		{"to after 2262", t0.Add(4 * time.Minute), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), []time.Duration{5 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := s.Accounting(c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if got := offsetsOf(recs); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	// The data goes with its time: +1m was the second append, "s1".
	recs, _ := s.Accounting(t0.Add(time.Minute), t0.Add(time.Minute+1))
	if len(recs) != 1 || string(recs[0].Data) != "s1" || recs[0].At.Location() != time.UTC {
		t.Errorf("record at +1m = %+v, want s1 in UTC", recs)
	}
}

func TestAccountingCollisions(t *testing.T) {
	cases := []struct {
		name    string
		offsets []time.Duration
		want    []time.Duration
	}{
		// Three at the same instant: moved to +1ns and +2ns.
		{"same instant", []time.Duration{0, 0, 0}, []time.Duration{0, 1, 2}},
		// +1ns is taken first; the second 0 skips over it to +2ns.
		{"skips taken neighbours", []time.Duration{1, 0, 0}, []time.Duration{0, 1, 2}},
		// Sub-nanosecond is not a thing: distinct instants stay put.
		{"no collision", []time.Duration{0, time.Second}, []time.Duration{0, time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			appendAll(t, s, c.offsets...)
			recs, err := s.Accounting(t0, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if got := offsetsOf(recs); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestAccountingInvalid(t *testing.T) {
	s := openStore(t)
	cases := []struct {
		name string
		at   time.Time
		data []byte
	}{
		{"empty data", t0, nil},
		{"before 1970", time.Unix(-1, 0), []byte("x")},
		{"zero time", time.Time{}, []byte("x")},
		{"after 2262", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), []byte("x")},
	}
	for _, c := range cases {
		if err := s.AppendAccounting(c.at, c.data); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", c.name, err)
		}
	}
	if recs, _ := s.Accounting(time.Unix(0, 0), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)); len(recs) != 0 {
		t.Errorf("refused snapshots were stored: %v", recs)
	}
}

func TestPruneAccounting(t *testing.T) {
	all := []time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute}
	cases := []struct {
		name    string
		before  time.Time
		deleted int
		left    []time.Duration
	}{
		{"nothing older", t0, 0, all},
		// Before +2m: 0 and +1m go.
		{"half", t0.Add(2 * time.Minute), 2, all[2:]},
		{"just after one", t0.Add(1), 1, all[1:]},
		{"all", t0.Add(time.Hour), 4, nil},
		{"before 1970 is nothing", time.Unix(-5, 0), 0, all},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			appendAll(t, s, all...)
			n, err := s.PruneAccounting(c.before)
			if err != nil || n != c.deleted {
				t.Fatalf("PruneAccounting = %d, %v; want %d", n, err, c.deleted)
			}
			recs, err := s.Accounting(t0, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if got := offsetsOf(recs); fmt.Sprint(got) != fmt.Sprint(c.left) {
				t.Errorf("left %v, want %v", got, c.left)
			}
		})
	}
}

func TestPruneManyAccounting(t *testing.T) {
	// Enough snapshots to span many pages, so deleting walks across them.
	s := openStore(t)
	const n = 3000
	for i := range n {
		if err := s.AppendAccounting(t0.Add(time.Duration(i)*time.Second), []byte("snapshot")); err != nil {
			t.Fatal(err)
		}
	}
	// Before +2000s: snapshots 0..1999 go, 1000 stay.
	got, err := s.PruneAccounting(t0.Add(2000 * time.Second))
	if err != nil || got != 2000 {
		t.Fatalf("PruneAccounting = %d, %v; want 2000", got, err)
	}
	recs, _ := s.Accounting(t0, t0.Add(n*time.Second))
	if len(recs) != 1000 || !recs[0].At.Equal(t0.Add(2000*time.Second)) {
		t.Errorf("left %d snapshots, want 1000 from +2000s", len(recs))
	}
}
