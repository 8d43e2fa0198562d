package energy

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/fielderr"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// newMeter builds a meter and, in cleanup, checks its invariants: the
// per-host energies add up to the total, and the total equals the
// integral of the samples.
func newMeter(t *testing.T, model PowerModel, hosts []string, initial drivers.PowerState, end *time.Time) *Meter {
	t.Helper()
	m, err := NewMeter(model, hosts, t0, initial)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkMeter(t, m, *end) })
	return m
}

func checkMeter(t *testing.T, m *Meter, end time.Time) {
	t.Helper()
	total, per := m.Energy(end)
	var sum float64
	for _, e := range per {
		sum += e
	}
	if math.Abs(sum-total) > 1e-9 {
		t.Errorf("per-host energies add to %g kWh, total %g", sum, total)
	}
	if integral := integrate(m.Samples(), end); math.Abs(integral-total) > 1e-9 {
		t.Errorf("samples integrate to %g kWh, total %g", integral, total)
	}
}

// integrate is the kWh under the steps up to end.
func integrate(s []Sample, end time.Time) float64 {
	var j float64
	for i, p := range s {
		next := end
		if i+1 < len(s) {
			next = s[i+1].Time
		}
		j += p.Watts * next.Sub(p.Time).Seconds()
	}
	return j / JoulesPerKWh
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestMeterTwoHostsOneHour(t *testing.T) {
	end := at(time.Hour)
	m := newMeter(t, DefaultPowerModel(), []string{"a", "b"}, On, &end)
	// 2 hosts * 117 W * 1 h = 234 Wh = 0.234 kWh.
	total, per := m.Energy(end)
	if !near(total, 0.234) || !near(per["a"], 0.117) || !near(per["b"], 0.117) {
		t.Errorf("Energy = %g %v, want 0.234, 0.117 each", total, per)
	}
}

func TestMeterShutdown(t *testing.T) {
	end := at(time.Hour)
	m := newMeter(t, DefaultPowerModel(), []string{"a", "b"}, On, &end)
	// b starts shutting down at 30 min; shutting down takes 60 s at the
	// idle 117 W; then off at 0 W.
	must(t, m.Set(at(30*time.Minute), "b", ShuttingDown))
	must(t, m.Set(at(31*time.Minute), "b", Off))
	// a: 117 W * 3600 s = 421200 J = 0.117 kWh.
	// b: 117 W * 1860 s (31 min) = 217620 J = 0.06045 kWh.
	total, per := m.Energy(end)
	if !near(per["a"], 0.117) || !near(per["b"], 0.06045) || !near(total, 0.17745) {
		t.Errorf("Energy = %g %v, want 0.17745 (a 0.117, b 0.06045)", total, per)
	}
	want := []Sample{{t0, 234}, {at(31 * time.Minute), 117}}
	if got := m.Samples(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Samples = %v, want %v", got, want)
	}
	c := m.Counts()
	if c[On] != 1 || c[Off] != 1 || c[Booting] != 0 || c[ShuttingDown] != 0 || len(c) != 4 {
		t.Errorf("Counts = %v", c)
	}
}

func TestMeterBoot(t *testing.T) {
	end := at(time.Hour)
	model := DefaultPowerModel()
	m := newMeter(t, model, []string{"a"}, Off, &end)
	must(t, m.Set(t0, "a", Booting))
	must(t, m.Set(t0.Add(model.Boot), "a", On))
	// Booting 120 s at 117 W, then on 3480 s at 117 W: 117 W for the
	// whole hour = 0.117 kWh (boot draws the idle figure).
	if total, _ := m.Energy(end); !near(total, 0.117) {
		t.Errorf("Energy = %g, want 0.117", total)
	}
	// Halfway through the hour: 117 W * 1800 s = 0.0585 kWh.
	if total, _ := m.Energy(at(30 * time.Minute)); !near(total, 0.0585) {
		t.Errorf("Energy at 30 min = %g, want 0.0585", total)
	}
	// Off at t0, booting from t0 at 117 W: one sample, 117 W, at t0.
	if got := m.Samples(); len(got) != 1 || got[0].Watts != 117 {
		t.Errorf("Samples = %v", got)
	}
}

func TestMeterLoad(t *testing.T) {
	end := at(90 * time.Minute)
	model := PowerModel{IdleWatts: 100, BusyWatts: 200, BootWatts: 150, ShutdownWatts: 80, OffWatts: 5}
	m := newMeter(t, model, []string{"a"}, On, &end)
	must(t, m.SetLoad(t0, "a", 0.5))
	must(t, m.SetLoad(at(time.Hour), "a", 0))
	// 1 h at 100 + .5*(200-100) = 150 W = .15 kWh, then 30 min at 100 W
	// = .05 kWh: .2 kWh.
	if total, _ := m.Energy(end); !near(total, 0.2) {
		t.Errorf("Energy = %g, want 0.2", total)
	}
	// Then: shutting down 6 min at 80 W (8 Wh), off 54 min at 5 W
	// (4.5 Wh), booting 6 min at 150 W (15 Wh), on 54 min at the load
	// kept from before (0) = 100 W (90 Wh): .2 + .1175 = .3175 kWh at 3.5 h.
	end = at(210 * time.Minute)
	must(t, m.Set(at(90*time.Minute), "a", ShuttingDown))
	must(t, m.Set(at(96*time.Minute), "a", Off))
	must(t, m.Set(at(150*time.Minute), "a", Booting))
	must(t, m.Set(at(156*time.Minute), "a", On))
	if total, _ := m.Energy(end); !near(total, 0.3175) {
		t.Errorf("Energy = %g, want 0.3175", total)
	}
	if w := m.Watts(); w != 100 {
		t.Errorf("Watts = %g, want 100", w)
	}
}

func TestMeterOffResetsLoad(t *testing.T) {
	end := at(time.Hour)
	m := newMeter(t, PowerModel{IdleWatts: 100, BusyWatts: 200}, []string{"a"}, On, &end)
	must(t, m.SetLoad(t0, "a", 1))
	for _, s := range []drivers.PowerState{ShuttingDown, Off, Booting, On} {
		must(t, m.Set(t0, "a", s))
	}
	// The full cycle at t0 cleared the load: 100 W for 1 h = .1 kWh.
	if total, _ := m.Energy(end); !near(total, 0.1) {
		t.Errorf("Energy = %g, want 0.1", total)
	}
}

func TestMeterErrors(t *testing.T) {
	end := at(time.Hour)
	m := newMeter(t, DefaultPowerModel(), []string{"a", "b"}, On, &end)
	must(t, m.Set(at(time.Minute), "a", ShuttingDown))
	cases := []struct {
		name string
		err  error
		want error
		text string
	}{
		{"on to booting", m.Set(at(2*time.Minute), "b", Booting), ErrIllegalTransition, "from on to booting"},
		{"shutting-down to on", m.Set(at(2*time.Minute), "a", On), ErrIllegalTransition, "from shutting-down to on"},
		{"unknown host", m.Set(at(2*time.Minute), "c", Off), ErrUnknownHost, `"c"`},
		{"unknown state", m.Set(at(2*time.Minute), "a", "asleep"), ErrUnknownState, "asleep"},
		{"backwards", m.Set(t0, "a", Off), ErrTimeBackwards, ""},
		{"load above 1", m.SetLoad(at(2*time.Minute), "b", 1.5), ErrInvalidLoad, ""},
		{"load NaN", m.SetLoad(at(2*time.Minute), "b", math.NaN()), ErrInvalidLoad, ""},
		{"add duplicate", m.AddHost(at(2*time.Minute), "a", Off), ErrDuplicateHost, ""},
		{"add empty", m.AddHost(at(2*time.Minute), "", Off), ErrDuplicateHost, ""},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) || !strings.Contains(fmt.Sprint(c.err), c.text) {
			t.Errorf("%s: %v, want %v containing %q", c.name, c.err, c.want, c.text)
		}
	}
	// Nothing changed: a is still shutting down since 1 min, b on.
	if s, _ := m.State("a"); s != ShuttingDown {
		t.Errorf("a is %s", s)
	}
	// Same state again is a no-op, not an error.
	must(t, m.Set(at(2*time.Minute), "b", On))
	if _, err := NewMeter(DefaultPowerModel(), []string{"a", "a"}, t0, On); !errors.Is(err, ErrDuplicateHost) {
		t.Errorf("NewMeter duplicate: %v", err)
	}
	if _, err := NewMeter(PowerModel{IdleWatts: -1}, nil, t0, On); !errors.Is(err, ErrInvalidPowerModel) {
		t.Errorf("NewMeter negative watts: %v", err)
	}
	if _, err := NewMeter(DefaultPowerModel(), nil, t0, "up"); !errors.Is(err, ErrUnknownState) {
		t.Errorf("NewMeter bad state: %v", err)
	}
}

func TestMeterAddHost(t *testing.T) {
	end := at(time.Hour)
	m := newMeter(t, DefaultPowerModel(), []string{"a"}, On, &end)
	must(t, m.AddHost(at(30*time.Minute), "b", On))
	// a 1 h (.117) + b 30 min (.0585) = .1755 kWh.
	if total, _ := m.Energy(end); !near(total, 0.1755) {
		t.Errorf("Energy = %g, want 0.1755", total)
	}
	if h := m.Hosts(); fmt.Sprint(h) != "[a b]" {
		t.Errorf("Hosts = %v", h)
	}
}

func TestPowerModelValidate(t *testing.T) {
	cases := []struct {
		name  string
		m     PowerModel
		field string
	}{
		{"negative idle", PowerModel{IdleWatts: -1}, "idle_watts"},
		{"NaN busy", PowerModel{BusyWatts: math.NaN()}, "busy_watts"},
		{"Inf boot", PowerModel{BootWatts: math.Inf(1)}, "boot_watts"},
		{"negative boot time", PowerModel{Boot: -time.Second}, "boot"},
		{"negative shutdown time", PowerModel{Shutdown: -time.Second}, "shutdown"},
	}
	for _, c := range cases {
		err := c.m.Validate()
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Path != c.field || !errors.Is(err, ErrInvalidPowerModel) {
			t.Errorf("%s: %v, want a *fielderr.Error on %s", c.name, err, c.field)
		}
	}
	if err := DefaultPowerModel().Validate(); err != nil {
		t.Error(err)
	}
}

func TestLegal(t *testing.T) {
	legal := map[[2]drivers.PowerState]bool{
		{Off, Booting}: true, {Booting, On}: true, {On, ShuttingDown}: true, {ShuttingDown, Off}: true,
	}
	for _, from := range States {
		for _, to := range States {
			want := from == to || legal[[2]drivers.PowerState{from, to}]
			if Legal(from, to) != want {
				t.Errorf("Legal(%s, %s) = %t", from, to, !want)
			}
		}
	}
}

// TestMeterRandom drives a meter with random legal changes and checks,
// at random times, that energy never decreases and the invariants of
// checkMeter hold; it also recomputes the energy from its own record.
func TestMeterRandom(t *testing.T) {
	seed := int64(7)
	rng := rand.New(rand.NewSource(seed))
	hosts := []string{"h0", "h1", "h2", "h3", "h4"}
	model := PowerModel{IdleWatts: 90, BusyWatts: 210, BootWatts: 130, ShutdownWatts: 70, OffWatts: 3}
	end := t0
	m := newMeter(t, model, hosts, On, &end)
	state := map[string]drivers.PowerState{}
	load := map[string]float64{}
	for _, h := range hosts {
		state[h] = On
	}
	var joules, prev float64
	now := t0
	for i := 0; i < 2000; i++ {
		dt := time.Duration(rng.Intn(600)) * time.Second
		for _, h := range hosts {
			joules += model.Watts(state[h], load[h]) * dt.Seconds()
		}
		now = now.Add(dt)
		h := hosts[rng.Intn(len(hosts))]
		if rng.Intn(2) == 0 {
			f := float64(rng.Intn(5)) / 4
			must(t, m.SetLoad(now, h, f))
			load[h] = f
		} else {
			s := next[state[h]]
			must(t, m.Set(now, h, s))
			state[h] = s
			if s == Off {
				load[h] = 0
			}
		}
		total, _ := m.Energy(now)
		if total < prev-1e-12 {
			t.Fatalf("seed %d: energy fell from %g to %g", seed, prev, total)
		}
		prev = total
	}
	end = now
	if total, _ := m.Energy(end); math.Abs(total-joules/JoulesPerKWh) > 1e-9 {
		t.Errorf("seed %d: meter %g kWh, recomputed %g", seed, total, joules/JoulesPerKWh)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
