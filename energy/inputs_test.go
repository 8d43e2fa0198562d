package energy

import (
	"math"
	"testing"
	"time"
)

func TestViolationRisk(t *testing.T) {
	now := at(10 * time.Hour)
	h := time.Hour
	cases := []struct {
		name    string
		waiting []Waiting
		alpha   float64
		want    float64
	}{
		{"empty", nil, 5, 0},
		// One lease: E = 2 h, tau = 5 h: V = 5/(5*2) = .5.
		{"one", []Waiting{{VMs: 4, Duration: 2 * h, Since: at(5 * h)}}, 5, 0.5},
		// n 1, d 1 h, w 3 h; n 3, d 3 h, w 1 h:
		// E = (1*1 + 3*3)/4 = 2.5 h, tau = (1*3 + 3*1)/4 = 1.5 h,
		// V = 1.5/(2*2.5) = .3.
		{"weighted", []Waiting{
			{VMs: 1, Duration: h, Since: at(7 * h)},
			{VMs: 3, Duration: 3 * h, Since: at(9 * h)},
		}, 2, 0.3},
		// A lease submitted after now has waited 0; one with 0 VMs counts
		// as nothing. Left: n 2 d 1 h w 0; n 2 d 1 h w 2 h:
		// E = 1 h, tau = (2*0 + 2*2)/4 = 1 h, V = 1/(5*1) = .2.
		{"future and empty", []Waiting{
			{VMs: 2, Duration: h, Since: at(11 * h)},
			{VMs: 0, Duration: 9 * h, Since: t0},
			{VMs: 2, Duration: h, Since: at(8 * h)},
		}, 5, 0.2},
		{"nothing waited yet", []Waiting{{VMs: 1, Duration: h, Since: now}}, 5, 0},
		{"zero durations", []Waiting{{VMs: 1, Duration: 0, Since: t0}}, 5, math.Inf(1)},
		{"no VMs", []Waiting{{VMs: 0, Duration: h, Since: t0}}, 5, 0},
	}
	for _, c := range cases {
		if got := ViolationRisk(c.waiting, now, c.alpha); math.Abs(got-c.want) > eps && got != c.want {
			t.Errorf("%s: V = %g, want %g", c.name, got, c.want)
		}
	}
}

func TestUtilisation(t *testing.T) {
	cases := []struct {
		name    string
		on      int
		horizon time.Duration
		booked  float64
		want    float64
	}{
		// 4 hosts over 1 h = 14400 node-seconds; 3600 booked: C = .25.
		{"quarter", 4, time.Hour, 3600, 0.25},
		{"full", 2, time.Minute, 120, 1},
		{"over", 2, time.Minute, 500, 1}, // clamped
		{"no host on", 0, time.Hour, 10, 0},
		{"no horizon", 3, 0, 10, 0},
		{"negative", 3, time.Hour, -1, 0},
		{"NaN", 3, time.Hour, math.NaN(), 0},
	}
	for _, c := range cases {
		if got := Utilisation(c.on, c.horizon, c.booked); math.Abs(got-c.want) > eps {
			t.Errorf("%s: C = %g, want %g", c.name, got, c.want)
		}
	}
}

func TestBooked(t *testing.T) {
	now := at(time.Hour)
	bookings := []Booking{
		{Start: t0, End: at(3 * time.Hour), Hosts: 2},                  // 2 hosts, 2 h left: 14400
		{Start: at(2 * time.Hour), End: at(4 * time.Hour), Hosts: 0.5}, // half a host, 2 h: 3600
		{Start: t0, End: at(30 * time.Minute), Hosts: 8},               // over: 0
	}
	// Horizon to the latest end: 4 h - 1 h = 3 h; L = 14400 + 3600 = 18000.
	horizon, ns := Booked(now, bookings)
	if horizon != 3*time.Hour || ns != 18000 {
		t.Errorf("Booked = %s, %g; want 3h, 18000", horizon, ns)
	}
	// With 4 hosts on: C = 18000 / (4 * 10800) = .41666...
	if c := Utilisation(4, horizon, ns); math.Abs(c-18000.0/43200) > eps {
		t.Errorf("C = %g", c)
	}
	if h, ns := Booked(now, nil); h != 0 || ns != 0 {
		t.Errorf("Booked(nothing) = %s, %g", h, ns)
	}
}

func TestViolationRate(t *testing.T) {
	m := time.Minute
	// Durations 10, 20, 30 min: mean 20 min; alpha 2: threshold 40 min.
	// Waits 0, 40 (not above), 41, 90 min: 2 of 4 violate: .5.
	leases := []Finished{
		{Wait: 0, Duration: 10 * m},
		{Wait: 40 * m, Duration: 20 * m},
		{Wait: 41 * m, Duration: 30 * m},
		{Wait: 90 * m, Duration: 20 * m},
	}
	// Mean of 10, 20, 30, 20 = 20 min.
	rate, th := ViolationRate(leases, 2)
	if rate != 0.5 || th != 40*m {
		t.Errorf("ViolationRate = %g, %s; want .5, 40m", rate, th)
	}
	// alpha 5: threshold 100 min, nobody violates.
	if rate, th := ViolationRate(leases, 5); rate != 0 || th != 100*m {
		t.Errorf("alpha 5: %g, %s", rate, th)
	}
	if rate, th := ViolationRate(nil, 5); rate != 0 || th != 0 {
		t.Errorf("empty: %g, %s", rate, th)
	}
}
