package slottable

import (
	"testing"
	"time"
)

// UsageIntegral: CPU 100 over [0, 10 s) and 50 more over [5 s, 20 s):
// over [2 s, 30 s) the integral is 100 x 3 + 150 x 5 + 50 x 10 = 1550,
// and the latest end is 20 s.
func TestUsageIntegral(t *testing.T) {
	tb := New()
	h, _ := tb.AddHost("h", Resources{200, 2048})
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(x int) time.Time { return t0.Add(time.Duration(x) * time.Second) }
	for _, r := range []Reservation{{Host: h, Start: s(0), End: s(10), Res: Resources{100, 0}},
		{Host: h, Start: s(5), End: s(20), Res: Resources{50, 0}}} {
		if _, err := tb.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	got, last := tb.UsageIntegral(h, CPU, s(2), s(30))
	if got != 1550 || !last.Equal(s(20)) {
		t.Errorf("UsageIntegral = %v, %v; want 1550, 20 s", got, last.Sub(t0))
	}
	if got, _ := tb.UsageIntegral(h, CPU, s(30), s(2)); got != 0 {
		t.Errorf("empty interval: %v", got)
	}
}
