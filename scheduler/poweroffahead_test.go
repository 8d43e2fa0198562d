package scheduler

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestPowerOffAhead: both hosts hold a local reservation at 36000 s (10 h).
// h1, free until then, is switched off at 0 with its boot planned: it
// shuts down over [0, 60), is off until 36000 - 120 = 35880 s, boots, and
// is on at 36000 s, when the reservation starts on both hosts.
// PowerOff refuses it (ErrHostBusy); PowerOffAhead refuses h1 once it is
// off, and h0 when the gap is shorter than the minimum asked.
func TestPowerOffAhead(t *testing.T) {
	s := powered(t)
	ar, _ := s.Submit(t0, local2("ar", 10*time.Hour, time.Hour))
	if ar.State != Scheduled {
		t.Fatalf("AR: %s", ar.State)
	}
	if err := s.PowerOff(t0, 1); !errors.Is(err, ErrHostBusy) {
		t.Fatalf("PowerOff of h1 with a reservation ahead: %v, want ErrHostBusy", err)
	}
	if _, _, err := s.PowerOffAhead(t0, 0, 11*time.Hour); !errors.Is(err, ErrPowerTransition) {
		t.Errorf("PowerOffAhead of h0 with a minimum gap of 11 h: %v, want ErrPowerTransition", err)
	}
	boot, on, err := s.PowerOffAhead(t0, 1, time.Hour)
	if err != nil || !boot.Equal(at(35880)) || !on.Equal(at(36000)) {
		t.Fatalf("PowerOffAhead = %v, %v, %v; want boot at 35880 s, on at 36000 s", boot.Sub(t0), on.Sub(t0), err)
	}
	if b, o, ok := s.BootPlanned(1); !ok || !b.Equal(at(35880)) || !o.Equal(at(36000)) {
		t.Errorf("BootPlanned = %v, %v, %v; want 35880 s, 36000 s", b.Sub(t0), o.Sub(t0), ok)
	}
	for _, c := range []struct {
		at   float64
		want PowerState
	}{{0, PowerShuttingDown}, {59.999, PowerShuttingDown}, {60, PowerOff}, {35879.999, PowerOff}, {35880, PowerBooting}, {35999.999, PowerBooting}, {36000, PowerOn}} {
		if got := s.PowerState(1, at(c.at)); got != c.want {
			t.Errorf("h1 at %v s: %s, want %s", c.at, got, c.want)
		}
	}
	if _, _, err := s.PowerOffAhead(at(100), 1, 0); !errors.Is(err, ErrPowerTransition) {
		t.Errorf("PowerOffAhead of h1 off: %v, want ErrPowerTransition", err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	log := play(s, at(36000), nil)
	want := []string{"+36000.000 start 1 [0 1]", "+36000.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if _, _, ok := s.BootPlanned(1); ok || s.PowerState(1, at(36000)) != PowerOn {
		t.Errorf("after 36000 s: boot still planned %v, h1 %s; want none, on", ok, s.PowerState(1, at(36000)))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPowerOffAheadTakenEarlier: h1 is switched off at 0 until a local
// reservation at 36000 s. A best-effort lease of two VMs for an hour,
// submitted at 1000 s, needs h1 and is planned after the reservation (39600 s); switched on at 1000 s to be on
// at once (as an off host is), h1 boots over [1000, 1120) and the lease
// runs on both hosts from 1120 s to 4720 s; the reservation at 36000 s
// still starts on both.
func TestPowerOffAheadTakenEarlier(t *testing.T) {
	s := powered(t)
	s.Submit(t0, local2("ar", 10*time.Hour, time.Hour))
	if _, _, err := s.PowerOffAhead(t0, 1, 0); err != nil {
		t.Fatal(err)
	}
	req := be("B", time.Hour)
	req.VMs = 2
	l, _ := s.Submit(at(1000), req)
	if st := l.PlannedStart(); l.State != Scheduled || st.Before(at(39600)) {
		t.Fatalf("B with h1 off: %s from %v, want planned after the AR (39600 s)", l.State, st.Sub(t0))
	}
	ready, err := s.PowerOn(at(1000), 1, at(1000))
	if err != nil || !ready.Equal(at(1120)) {
		t.Fatalf("PowerOn = %v, %v; want on at 1120 s", ready.Sub(t0), err)
	}
	if b, o, ok := s.BootPlanned(1); !ok || !b.Equal(at(1000)) || !o.Equal(at(1120)) {
		t.Errorf("BootPlanned = %v, %v, %v; want 1000 s, 1120 s", b.Sub(t0), o.Sub(t0), ok)
	}
	if st := s.PowerState(1, at(1100)); st != PowerBooting {
		t.Errorf("h1 at 1100 s: %s, want booting", st)
	}
	s.PlanQueue()
	log := render(nil, s.Advance(at(1000)))
	log = play(s, at(36000), log)
	want := []string{"+1120.000 start 2 [0 1]", "+1120.000 run 2 [0 1]", "+4720.000 done 2 [0 1]",
		"+36000.000 start 1 [0 1]", "+36000.000 run 1 [0 1]"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions %v, want %v", log, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
