package workload

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	epoch := time.Unix(0, 0).UTC()
	tests := []struct {
		in      string
		allowGo bool
		want    time.Duration
		ok      bool
	}{
		{"3600", false, time.Hour, true},
		{"1.5", false, 1500 * time.Millisecond, true},
		{"01:30:00", false, 90 * time.Minute, true},
		{"+01:30:00", false, 90 * time.Minute, true},
		{"00:00:00.00", false, 0, true},
		{"100:00:00", false, 100 * time.Hour, true}, // hours may pass 23 without a day field
		{"2:03:00:00", false, 51 * time.Hour, true}, // 2 days + 3 h
		{"1970-01-02 00:00:01", false, 86401 * time.Second, true},
		{"1970-01-01T01:00:00Z", false, time.Hour, true},
		{"2h30m", true, 150 * time.Minute, true},
		{"2h30m", false, 0, false},      // Go durations only in bora's format
		{"00:60:00", false, 0, false},   // minutes < 60
		{"1:24:00:00", false, 0, false}, // hours < 24 with a day field
		{"00:00:-1", false, 0, false},
		{"1:2", false, 0, false},
		{"0x10", false, 0, false},
		{"NaN", false, 0, false},
		{"1e12", false, 0, false},                // beyond 100 years
		{"1960-01-01 00:00:00", false, 0, false}, // before the epoch
		{"2999-01-01 00:00:00", false, 0, false}, // beyond 100 years
		{"900000h", true, 0, false},              // 102 years: beyond 100
	}
	for _, tc := range tests {
		got, err := parseTime(tc.in, epoch, tc.allowGo)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseTime(%q, %v) = %v, %v; want %v, ok %v", tc.in, tc.allowGo, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseWholeAndCores(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"64", 64, true}, {"64.0", 64, true}, {"-1", -1, true}, {"4.5", 0, false}, {"x", 0, false},
		{"99999999999999999999", 0, false}, {"1e30", 0, false}, {"2000000", 0, false},
	} {
		got, err := parseWhole(tc.in, -1, maxVMs)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseWhole(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// 0.5 cores = 50, 1.234 rounds to 123, 2 = 200.
	for in, want := range map[float64]int64{0.5: 50, 1.234: 123, 2: 200} {
		if got, err := cores(in); err != nil || got != want {
			t.Errorf("cores(%g) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := cores(-0.5); err == nil {
		t.Error("cores(-0.5) accepted")
	}
}
