package clock

import (
	"testing"
	"time"
)

// TestWallDuration: how long the daemon sleeps (in real time) for
// something an hour ahead on each clock.
func TestWallDuration(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		clk  Clock
		want time.Duration
	}{
		{"real", Real{}, time.Hour},
		{"scaled x60", NewScaled(base, 60), time.Minute}, // 3600 s / 60 = 60 s
		{"scaled x0.5", NewScaled(base, 0.5), 2 * time.Hour},
		{"simulated", NewSim(base), time.Hour}, // jumped, not slept: see Jumper
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.clk.WallDuration(time.Hour); got != c.want {
				t.Errorf("WallDuration(1h) = %v, want %v", got, c.want)
			}
		})
	}
}

// TestJumper: of the three clocks only the simulated one is jumped.
func TestJumper(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		clk  Clock
		want bool
	}{{"real", Real{}, false}, {"scaled", NewScaled(base, 2), false}, {"simulated", NewSim(base), true}} {
		if _, got := c.clk.(Jumper); got != c.want {
			t.Errorf("%s: Jumper %v, want %v", c.name, got, c.want)
		}
	}
}
