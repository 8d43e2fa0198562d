package slottable

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestSetCapacity(t *testing.T) {
	tb := New()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h, _ := tb.AddHost("node1", Resources{0, 0}) // not measured yet
	if n := tb.FitCount(h, t0, t0.Add(time.Hour), Resources{100, 1024}, nil); n != 0 {
		t.Fatalf("a host of capacity 0 fits %d VMs", n)
	}
	if err := tb.SetCapacity(h, Resources{400, 4096}); err != nil {
		t.Fatal(err)
	}
	// 4 cores and 4 GB: four VMs of 1 core and 1 GB.
	if n := tb.FitCount(h, t0, t0.Add(time.Hour), Resources{100, 1024}, nil); n != 4 {
		t.Errorf("after SetCapacity 4 cores / 4 GB: %d VMs fit, want 4", n)
	}
	if _, err := tb.Add(Reservation{Lease: 1, Host: h, Start: t0, End: t0.Add(time.Hour), Res: Resources{300, 3072}}); err != nil {
		t.Fatal(err)
	}
	// Shrunk to 2 cores under a 3-core reservation: over by one core.
	if err := tb.SetCapacity(h, Resources{200, 4096}); err != nil {
		t.Fatal(err)
	}
	if a := tb.Available(h, t0, t0.Add(time.Hour)); a[CPU] != -100 || a[Memory] != 1024 {
		t.Errorf("available %v, want [-100 1024]", a)
	}
	if err := tb.Check(); !errors.Is(err, ErrOverCapacity) {
		t.Errorf("Check: %v, want ErrOverCapacity", err)
	}
	for _, bad := range []struct {
		h   HostID
		res Resources
		err error
	}{{7, Resources{1, 1}, ErrUnknownHost}, {h, Resources{-1, 1}, ErrBadResources}, {h, Resources{1}, ErrBadResources}} {
		if err := tb.SetCapacity(bad.h, bad.res); !errors.Is(err, bad.err) {
			t.Errorf("SetCapacity(%d, %v): %v, want %v", bad.h, bad.res, err, bad.err)
		}
	}
	if hh, _ := tb.Host(h); hh.Capacity[CPU] != 200 {
		t.Errorf("a refused SetCapacity changed the host: %v", hh.Capacity)
	}
}

func TestMostPerHost(t *testing.T) {
	tb := New()
	if n := tb.MostPerHost(Resources{100, 1024}); n != 0 {
		t.Errorf("no hosts: %d, want 0", n)
	}
	_, _ = tb.AddHost("small", Resources{200, 4096}) // 2 cores, 4 GB
	_, _ = tb.AddHost("big", Resources{800, 3072})   // 8 cores, 3 GB
	for _, c := range []struct {
		name string
		per  Resources
		want int
	}{
		// small: min(200/100, 4096/1024) = 2; big: min(8, 3) = 3.
		{"cpu and memory", Resources{100, 1024}, 3},
		// small: min(4, 4) = 4; big: min(16, 3) = 3.
		{"half a core", Resources{50, 1024}, 4},
		// Memory only: small 4096/512 = 8, big 3072/512 = 6.
		{"no cpu", Resources{0, 512}, 8},
		// Larger than every host.
		{"too large", Resources{1000, 1024}, 0},
		{"nothing", Resources{0, 0}, math.MaxInt},
	} {
		if n := tb.MostPerHost(c.per); n != c.want {
			t.Errorf("%s: MostPerHost(%v) = %d, want %d", c.name, c.per, n, c.want)
		}
	}
}
