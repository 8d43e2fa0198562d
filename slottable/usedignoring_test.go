package slottable

import (
	"testing"
	"time"
)

// TestUsedIgnoring: host h0 (200 CPU, 2048 MB), closed, holds lease 1 over
// [0, 100) with 100/1024 and lease 2 over [50, 150) with 100/512. Over
// [0, 150) the peak is 200/1536 (both, over [50, 100)); without lease 2
// it is lease 1's 100/1024; without both it is zero. A closed host still
// answers (FitCount would say 0).
func TestUsedIgnoring(t *testing.T) {
	tb := New()
	h, _ := tb.AddHost("h0", Resources{200, 2048})
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	for _, r := range []Reservation{
		{Lease: 1, Host: h, Start: sec(0), End: sec(100), Res: Resources{100, 1024}},
		{Lease: 2, Host: h, Start: sec(50), End: sec(150), Res: Resources{100, 512}},
	} {
		if _, err := tb.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = tb.SetClosed(h, true)
	for _, c := range []struct {
		name   string
		ignore func(Reservation) bool
		want   Resources
	}{
		{"all", nil, Resources{200, 1536}},
		{"without 2", func(r Reservation) bool { return r.Lease == 2 }, Resources{100, 1024}},
		{"without both", func(Reservation) bool { return true }, Resources{0, 0}},
	} {
		got := tb.UsedIgnoring(h, sec(0), sec(150), c.ignore)
		if !equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if tb.UsedIgnoring(7, sec(0), sec(1), nil) != nil {
		t.Error("unknown host: not nil")
	}
}
