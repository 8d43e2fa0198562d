package admission

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/queueing"
	"github.com/bora-sched/bora/scheduler"
)

var t0 = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]PolicyName{"accept-all": AcceptAll, "One-At-A-Time": OneAtATime, " rate ": Rate, "PACP": PACP} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParsePolicy("kapac")
	if !errors.Is(err, ErrUnknownPolicy) || err.Error() != `unknown admission policy "kapac" (want accept-all, one-at-a-time, pacp, rate)` {
		t.Errorf("unknown policy: %v", err)
	}
}

// TestPolicyLimits: each policy's K from hand-worked inputs.
func TestPolicyLimits(t *testing.T) {
	exp := queueing.Load{LocalRate: 0.5, LocalServiceRate: 1, ExternalMean: 1, ExternalRate: 0.2} // queueing's "exp" fixture
	shape2 := queueing.Load{LocalRate: 0.1, LocalServiceRate: 0.5, LocalCV: 1, ExternalMean: 10, ExternalRate: 0.08}
	tests := []struct {
		name   string
		policy PolicyName
		in     Inputs
		want   Limit
	}{
		{"accept-all", AcceptAll, Inputs{MaxK: 5}, Limit{Unlimited: true}},
		{"one-at-a-time", OneAtATime, Inputs{MaxK: 5}, Limit{K: 1}},
		// mu_e = 1/2 = 0.5, lambda = 0.125: floor(4) = 4.
		{"rate exact", Rate, Inputs{Load: queueing.Load{LocalRate: 0.125, ExternalMean: 2}, MaxK: 100}, Limit{K: 4}},
		// mu_e = 1, lambda = 0.3: floor(3.33) = 3.
		{"rate floor", Rate, Inputs{Load: queueing.Load{LocalRate: 0.3, ExternalMean: 1}, MaxK: 100}, Limit{K: 3}},
		// mu_e = 0.01, lambda = 0.5: floor(0.02) = 0, admit none.
		{"rate zero", Rate, Inputs{Load: queueing.Load{LocalRate: 0.5, ExternalMean: 100}, MaxK: 100}, Limit{K: 0}},
		{"rate capped", Rate, Inputs{Load: queueing.Load{LocalRate: 0.125, ExternalMean: 2}, MaxK: 3}, Limit{K: 3, Capped: true}},
		// E(R_K) = 2, 18/7, 38/13, 3.1232: D = 3 gives K* = 3.
		{"pacp exp", PACP, Inputs{Load: exp, Threshold: 3, MaxK: 50}, Limit{K: 3}},
		// D = (0.5*4 + 0.5*2)*10 = 30; E(R_3) = 24.12 <= 30 < E(R_4) = 30.31.
		{"pacp shape2", PACP, Inputs{Load: shape2, Threshold: 30, MaxK: 50}, Limit{K: 3}},
		{"pacp saturated", PACP, Inputs{Load: queueing.Load{LocalRate: 1, LocalServiceRate: 1, ExternalMean: 1, ExternalRate: 1}, Threshold: 100, MaxK: 50}, Limit{Saturated: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lookup(tc.policy).Limit(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func testConfig(p PolicyName) Config {
	c := DefaultConfig()
	c.Policy = p
	c.Estimator = EstimatorConfig{Window: 100 * time.Second, Warmup: 10 * time.Second, MinSamples: 20}
	return c
}

func newController(t *testing.T, c Config) *Controller {
	t.Helper()
	ctl, err := NewController(c, t0)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

func observe(t *testing.T, ctl *Controller, os ...Observation) {
	t.Helper()
	for _, o := range os {
		if err := ctl.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
}

// feedExp feeds 100 s of history that estimates queueing's "exp" load:
// 50 local arrivals (lambda 0.5), 20 external arrivals (Lambda 0.2), 20
// local ends of 1 s at share 1 (mu_l 1, theta 0) and 20 external ends of
// 2 s at share 1/2 (service 1 s: omega 1; run time 2 s).
func feedExp(t *testing.T, ctl *Controller) {
	for i := range 50 {
		observe(t, ctl, Observation{Kind: LocalArrival, At: at(float64(i)*2 + 1)})
	}
	for i := range 20 {
		observe(t, ctl, Observation{Kind: ExternalArrival, At: at(float64(i)*5 + 2)},
			Observation{Kind: LocalEnd, At: at(float64(i)*5 + 3), RunS: 1, Share: 1},
			Observation{Kind: ExternalEnd, At: at(float64(i)*5 + 4), RunS: 2, Share: 0.5})
	}
}

// TestPACPFromHistory: the history of feedExp with D = 3 s gives the
// queueing fixture's K* = 3; the fourth is rejected with the reason.
func TestPACPFromHistory(t *testing.T) {
	c := testConfig(PACP)
	c.Threshold = 3 * time.Second
	ctl := newController(t, c)
	feedExp(t, ctl)
	if err := ctl.Recompute(at(100)); err != nil {
		t.Fatal(err)
	}
	st := ctl.Current()
	want := queueing.Load{LocalRate: 0.5, LocalServiceRate: 1, LocalCV: 0, ExternalMean: 1, ExternalRate: 0.2}
	if st.Estimate.Load != want || st.Estimate.ExternalRunS != 2 || !st.Warm || st.Limit != (Limit{K: 3}) {
		t.Fatalf("state %+v, want load %+v, run 2 s, warm, K = 3", st, want)
	}
	if d := ctl.Decide(at(100), 2); !d.Admit {
		t.Errorf("2 admitted: %v, want admitted", d)
	}
	d := ctl.Decide(at(100), 3)
	if d.Admit || d.Reason != scheduler.ReasonAdmissionLimit || d.String() != "admission-limit: 3 external leases admitted, limit 3 (pacp, D = 3.0 s)" {
		t.Errorf("3 admitted: %q", d)
	}
	ex, err := ctl.Explain()
	if err != nil || ex.Limit.K != 3 || len(ex.ResponseTimes) != 4 {
		t.Errorf("explain: %+v, %v; want K* 3 and E(R_1..4)", ex, err)
	}
}

// TestDerivedThreshold: D = (0.5*4 + 0.5*2) × the mean run time 2 s = 6 s
// (not the service time 1 s); E(R_K) stays below 6 for every K, so K* is
// the cap.
func TestDerivedThreshold(t *testing.T) {
	c := testConfig(PACP)
	c.MaxK = 40
	ctl := newController(t, c)
	feedExp(t, ctl)
	if err := ctl.Recompute(at(100)); err != nil {
		t.Fatal(err)
	}
	// E(R_K) rises to the M/M/1-like limit 1/(0.5-0.2) = 3.33 < 6.
	if st := ctl.Current(); st.Threshold != 6 || st.Limit != (Limit{K: 40, Capped: true}) {
		t.Fatalf("D %v, limit %+v; want 6 and the cap 40", st.Threshold, st.Limit)
	}
	if ctl.FirstThreshold() != 6 {
		t.Errorf("first threshold %v, want 6", ctl.FirstThreshold())
	}
}

func TestOneAtATime(t *testing.T) {
	ctl := newController(t, testConfig(OneAtATime))
	// No history and no computation: K = 1 from the start.
	if d := ctl.Decide(at(0), 0); !d.Admit || d.Limit != (Limit{K: 1}) {
		t.Errorf("0 admitted: %+v, want admitted under K = 1", d)
	}
	d := ctl.Decide(at(0), 1)
	if d.Admit || d.String() != "admission-limit: 1 external lease admitted, limit 1 (one-at-a-time)" {
		t.Errorf("1 admitted: %q", d)
	}
}

func TestRateFromHistory(t *testing.T) {
	ctl := newController(t, testConfig(Rate))
	feedExp(t, ctl)
	if err := ctl.Recompute(at(100)); err != nil {
		t.Fatal(err)
	}
	// mu_e = 1/omega = 1, lambda = 0.5: K = 2.
	if st := ctl.Current(); st.Limit != (Limit{K: 2}) {
		t.Fatalf("limit %+v, want K = 2", st.Limit)
	}
	if d := ctl.Decide(at(100), 2); d.Admit || d.Detail != "2 external leases admitted, limit 2 (rate)" {
		t.Errorf("2 admitted: %q", d)
	}
}

// TestWarmup: rate and pacp admit all until the history spans the
// warm-up and MinSamples ends are seen; one-at-a-time needs nothing.
func TestWarmup(t *testing.T) {
	c := testConfig(PACP)
	c.Threshold = 3 * time.Second
	ctl := newController(t, c)
	if err := ctl.Recompute(at(5)); err != nil {
		t.Fatal(err)
	}
	st := ctl.Current()
	if st.Warm || !st.Limit.Unlimited || st.Estimate.RatesReady || len(st.Estimate.Warming) != 3 {
		t.Fatalf("at 5 s: %+v; want warming on all three inputs, unlimited", st)
	}
	if !strings.Contains(st.Estimate.Warming[0], "5s of history, need 10s") {
		t.Errorf("warming %q", st.Estimate.Warming)
	}
	if _, err := ctl.Explain(); !errors.Is(err, ErrWarmingUp) {
		t.Errorf("explain while warming: %v", err)
	}
	if d := ctl.Decide(at(5), 1000); !d.Admit {
		t.Errorf("warming: %+v, want admitted", d)
	}
	// 19 external ends: one short of MinSamples.
	for i := range 19 {
		observe(t, ctl, Observation{Kind: ExternalEnd, At: at(float64(i) + 10), RunS: 1, Share: 1})
	}
	if err := ctl.Recompute(at(40)); err != nil {
		t.Fatal(err)
	}
	if st := ctl.Current(); st.Warm || !st.Estimate.RatesReady || st.Estimate.ExternalReady || st.Estimate.LocalReady {
		t.Fatalf("19 ends: %+v; want rates only", st.Estimate)
	}
	observe(t, ctl, Observation{Kind: ExternalEnd, At: at(40), RunS: 1, Share: 1})
	if err := ctl.Recompute(at(40)); err != nil {
		t.Fatal(err)
	}
	// No local arrivals: rho_l = 0, the local service time is not needed;
	// Lambda = 0: E(R_K) = omega = 1 <= 3 up to the cap.
	if st := ctl.Current(); !st.Warm || st.Limit != (Limit{K: 1000, Capped: true}) {
		t.Fatalf("20 ends: %+v; want warm, capped", st)
	}
}

// TestWindowSlides: observations leave the window; the rate is over the
// window, or the history when shorter; service estimates are kept when
// the window holds too few ends.
func TestWindowSlides(t *testing.T) {
	est, err := NewEstimator(EstimatorConfig{Window: 100 * time.Second, Warmup: 10 * time.Second, MinSamples: 2}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 20; i++ {
		if err := est.Observe(Observation{Kind: LocalArrival, At: at(float64(i))}); err != nil {
			t.Fatal(err)
		}
	}
	// Ends of 10 s and 30 s: mean 20, population sd 10, cv 0.5.
	for _, o := range []Observation{{Kind: LocalEnd, At: at(30), RunS: 30, Share: 1}, {Kind: LocalEnd, At: at(20), RunS: 10, Share: 1}} {
		if err := est.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	// At 50 s: 10 arrivals over 50 s of history.
	e := est.Estimate(at(50))
	if e.Load.LocalRate != 0.2 || e.SpanS != 50 || e.Load.LocalServiceRate != 0.05 || e.Load.LocalCV != 0.5 {
		t.Fatalf("at 50 s: %+v; want lambda 0.2, span 50, mu_l 1/20, cv 0.5", e.Load)
	}
	// At 115 s the window is (15, 115]: arrivals 10..15 left, 4 over 100 s;
	// the ends are still in.
	e = est.Estimate(at(115))
	if e.Counts[LocalArrival] != 4 || e.Load.LocalRate != 0.04 || e.Counts[LocalEnd] != 2 {
		t.Fatalf("at 115 s: %+v %+v; want 4 arrivals, lambda 0.04, 2 ends", e.Counts, e.Load)
	}
	// At 125 s the end at 20 s has left: one end, below MinSamples, so the
	// kept mean 20 s stands.
	e = est.Estimate(at(125))
	if e.Counts[LocalEnd] != 1 || !e.LocalReady || e.Load.LocalServiceRate != 0.05 {
		t.Fatalf("at 125 s: %+v %+v; want 1 end and the kept mu_l 0.05", e.Counts, e.Load)
	}
	if n := len(est.Snapshot().Observations); n != 1 { // the window (25, 125] holds the end at 30 alone
		t.Errorf("%d observations kept, want 1", n)
	}
}

// TestSnapshotRoundTrip: a controller restored from its snapshot's JSON
// has the same state and answers as the original afterwards.
func TestSnapshotRoundTrip(t *testing.T) {
	c := testConfig(PACP)
	c.Threshold = 3 * time.Second
	a := newController(t, c)
	feedExp(t, a)
	if err := a.Recompute(at(100)); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(a.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	b := newController(t, c)
	if err := b.Restore(s); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(b.Snapshot())
	if string(again) != string(data) {
		t.Fatalf("round trip:\n%s\n%s", data, again)
	}
	// The same new history on both gives the same estimate.
	for _, ctl := range []*Controller{a, b} {
		observe(t, ctl, Observation{Kind: ExternalArrival, At: at(120)})
		if err := ctl.Recompute(at(150)); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a.Current().Estimate.Load, b.Current().Estimate.Load) || a.Current().Limit != b.Current().Limit {
		t.Errorf("after restore: %+v vs %+v", a.Current(), b.Current())
	}
	// A snapshot of another policy keeps the history, not the limit.
	o := newController(t, testConfig(OneAtATime))
	if err := o.Restore(s); err != nil || o.Current().Limit != (Limit{K: 1}) || len(o.Snapshot().Estimator.Observations) == 0 {
		t.Errorf("other policy: %+v, %v", o.Current(), err)
	}
	// A bad snapshot names the field and changes nothing.
	neg := s
	neg.State.Limit.K = -1
	if err := b.Restore(neg); !errors.Is(err, ErrInvalid) || b.Current().Limit != a.Current().Limit {
		t.Errorf("negative K: %v, limit %+v", err, b.Current().Limit)
	}
	s.Estimator.Observations[3].Share = 2
	err = b.Restore(s)
	var fe *fielderr.Error
	if !errors.As(err, &fe) || fe.Path != "estimator.observations[3].share" || !errors.Is(err, ErrInvalid) {
		t.Errorf("bad snapshot: %v", err)
	}
}

func TestDue(t *testing.T) {
	c := testConfig(PACP)
	c.RecomputeShare = 0.1 // 10 s of the 100 s window
	c.Next = func(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }
	ctl := newController(t, c)
	if !ctl.Due(at(0)) {
		t.Error("never computed: want due")
	}
	if err := ctl.Recompute(at(55)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    float64
		want bool
	}{{60, true}, {59, false}, {64.9, true}} {
		// 60: the cron's minute; 59: neither (4 s < 10 s); 64.9: the cron's
		// time has passed. The share alone: below.
		if got := ctl.Due(at(tc.s)); got != tc.want {
			t.Errorf("due at %v s: %v, want %v", tc.s, got, tc.want)
		}
	}
	if next, _ := ctl.NextCron(); !next.Equal(at(60)) {
		t.Errorf("next cron %v", next)
	}
	c.Next = nil
	ctl = newController(t, c)
	if err := ctl.Recompute(at(55)); err != nil {
		t.Fatal(err)
	}
	if ctl.Due(at(64.9)) || !ctl.Due(at(65)) {
		t.Error("share 0.1 of 100 s: want due from 65 s on, not before")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Config)
		path string
	}{
		{"policy", func(c *Config) { c.Policy = "kapac" }, "policy"},
		{"threshold", func(c *Config) { c.Threshold = -time.Second }, "threshold"},
		{"low share", func(c *Config) { c.LowShare = 1.5 }, "low_share"},
		{"high ratio", func(c *Config) { c.HighRatio = 0 }, "high_ratio"},
		{"max k", func(c *Config) { c.MaxK = 0 }, "max_k"},
		{"share", func(c *Config) { c.RecomputeShare = 0 }, "recompute_share"},
		{"window", func(c *Config) { c.Estimator.Window = 0 }, "window"},
		{"warmup", func(c *Config) { c.Estimator.Warmup = 48 * time.Hour }, "warmup"},
		{"samples", func(c *Config) { c.Estimator.MinSamples = 0 }, "min_samples"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%s: %v, want an error at %s", tc.name, err, tc.path)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}

func TestObserveInvalid(t *testing.T) {
	ctl := newController(t, testConfig(Rate))
	for _, tc := range []struct {
		o    Observation
		path string
	}{
		{Observation{Kind: "lunch", At: at(1)}, "kind"},
		{Observation{Kind: LocalArrival}, "at"},
		{Observation{Kind: LocalEnd, At: at(1), RunS: -1, Share: 1}, "run_s"},
		{Observation{Kind: ExternalEnd, At: at(1), RunS: 1}, "share"},
	} {
		var fe *fielderr.Error
		if err := ctl.Observe(tc.o); !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%+v: %v, want an error at %s", tc.o, err, tc.path)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for in, want := range map[float64]string{1800: "1,800", 540: "540", 10: "10", 8.44: "8.4", 1234567.4: "1,234,567", 100: "100", 999999.6: "1,000,000"} {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestReasonExample: the example, word for word.
func TestReasonExample(t *testing.T) {
	ctl := newController(t, testConfig(PACP))
	ctl.state = State{Policy: PACP, ComputedAt: at(1), Threshold: 1800, Limit: Limit{K: 7}, Warm: true}
	if d := ctl.Decide(at(2), 7); d.String() != "admission-limit: 7 external leases admitted, limit 7 (pacp, D = 1,800 s)" {
		t.Errorf("got %q", d)
	}
}

func TestViolationRate(t *testing.T) {
	cases := []struct {
		name                     string
		accepted, rejected, late int
		want                     float64
	}{
		{"none", 0, 0, 0, 0},
		{"all rejected", 0, 3, 0, 100},
		{"mixed", 8, 2, 2, 40}, // (8·2/8 + 2)/10 × 100
		{"none late", 5, 0, 0, 0},
	}
	for _, c := range cases {
		if got := ViolationRate(c.accepted, c.rejected, c.late); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
