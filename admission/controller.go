package admission

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/queueing"
	"github.com/bora-sched/bora/scheduler"
)

// Config is an admission stage: the policy, the threshold D, the cap on
// K, the estimator and when the limit is computed again. The config keys
// admission.* (package config) are its fields.
type Config struct {
	Policy PolicyName
	// Threshold is D, set by the administrator; 0 derives it from the
	// urgency shares: D = (LowShare*LowRatio + (1-LowShare)*HighRatio) ×
	// omega, omega the mean run time of external leases (queueing.Threshold).
	Threshold                     time.Duration
	LowShare, LowRatio, HighRatio float64
	// MaxK caps K (rate, pacp): 1..queueing.MaxK.
	MaxK int
	// RecomputeShare: the limit is computed again when the window has
	// moved by this share of its length since the last computation
	// (Tick), besides the cron (Next).
	RecomputeShare float64
	Estimator      EstimatorConfig
	// Next, when set, is the cron: the time of the computation after a
	// given one (the daemon's schedule, the simulator's events).
	Next func(time.Time) time.Time
}

// DefaultConfig is accept-all with the reference urgency (half low, at
// deadline ratio 4, half high at 2), K capped at 1,000, a window of 24
// hours, a warm-up of one hour and 20 ends, and the limit computed again
// every 5 % of the window (72 minutes).
func DefaultConfig() Config {
	return Config{Policy: AcceptAll, LowShare: 0.5, LowRatio: 4, HighRatio: 2, MaxK: 1000, RecomputeShare: 0.05,
		Estimator: EstimatorConfig{Window: 24 * time.Hour, Warmup: time.Hour, MinSamples: 20}}
}

// Validate checks the configuration. Its errors are *fielderr.Error whose
// path is the setting's key below admission (policy, threshold,
// low_share, low_ratio, high_ratio, max_k, recompute_share, window,
// warmup, min_samples), wrapping ErrUnknownPolicy or ErrInvalid.
func (c Config) Validate() error {
	if _, ok := policies[c.Policy]; !ok {
		return &fielderr.Error{Path: "policy", Msg: fmt.Sprintf("unknown policy %q (want %s)", c.Policy, strings.Join(PolicyNames(), ", ")), Err: ErrUnknownPolicy}
	}
	if c.Threshold < 0 {
		return fielderr.Wrap(ErrInvalid, "threshold", "must not be negative (0 derives it), got %s", c.Threshold)
	}
	if !(c.LowShare >= 0 && c.LowShare <= 1) {
		return fielderr.Wrap(ErrInvalid, "low_share", "must be a share between 0 and 1, got %v", c.LowShare)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"low_ratio", c.LowRatio}, {"high_ratio", c.HighRatio}} {
		if !(r.v > 0) || math.IsInf(r.v, 0) {
			return fielderr.Wrap(ErrInvalid, r.name, "must be a positive number, got %v", r.v)
		}
	}
	if c.MaxK < 1 || c.MaxK > queueing.MaxK {
		return fielderr.Wrap(ErrInvalid, "max_k", "must be between 1 and %d, got %d", queueing.MaxK, c.MaxK)
	}
	if !(c.RecomputeShare > 0 && c.RecomputeShare <= 1) {
		return fielderr.Wrap(ErrInvalid, "recompute_share", "must be above 0 and at most 1, got %v", c.RecomputeShare)
	}
	return c.Estimator.validate()
}

// State is the controller's current limit and what it came from: what
// `bora admission explain` and the metrics show.
type State struct {
	Policy PolicyName `json:"policy"`
	// ComputedAt is when the limit was last computed (zero: never).
	ComputedAt time.Time `json:"computed_at"`
	Estimate   Estimate  `json:"estimate"`
	// Threshold is D in seconds (0: not known yet, derived from an
	// external mean still warming up).
	Threshold float64 `json:"threshold_s"`
	Limit     Limit   `json:"limit"`
	// Warm says the policy's inputs are estimated; while they are not,
	// rate and pacp admit every external lease (docs/models.md §4).
	Warm bool `json:"warm"`
}

// Controller is the admission stage of one cluster. It is not safe for
// concurrent use.
type Controller struct {
	cfg    Config
	entry  entry
	est    *Estimator
	state  State
	firstD float64
}

// NewController starts a controller whose history begins at start. A bad
// configuration is an error of Config.Validate.
func NewController(cfg Config, start time.Time) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	est, err := NewEstimator(cfg.Estimator, start)
	if err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, entry: policies[cfg.Policy], est: est}
	c.reset()
	return c, nil
}

// reset is the state before any computation: the policy's limit if it
// needs no input, else no limit (warming up).
func (c *Controller) reset() {
	c.state = State{Policy: c.cfg.Policy, Threshold: c.cfg.Threshold.Seconds(), Limit: Limit{Unlimited: true}}
	if c.entry.needs == (need{}) {
		c.state.Limit, _ = c.entry.policy.Limit(Inputs{MaxK: c.cfg.MaxK})
		c.state.Warm = true
	}
	if c.state.Threshold > 0 {
		c.firstD = c.state.Threshold
	}
}

// Observe feeds the estimator (Estimator.Observe).
func (c *Controller) Observe(o Observation) error { return c.est.Observe(o) }

// Current returns the current state.
func (c *Controller) Current() State { return c.state }

// Config returns the controller's configuration.
func (c *Controller) Config() Config { return c.cfg }

// FirstThreshold is the first D known (0 while none is): what the
// simulator measures the leases admitted before it against.
func (c *Controller) FirstThreshold() float64 { return c.firstD }

// NextCron is the time of the next scheduled computation, after the last
// one; false without a cron (Config.Next).
func (c *Controller) NextCron() (time.Time, bool) {
	if c.cfg.Next == nil {
		return time.Time{}, false
	}
	return c.cfg.Next(c.state.ComputedAt), true
}

// Due reports whether the limit is to be computed again at now: never
// computed, the cron's time has come, or the window has moved by
// RecomputeShare of its length since the last computation.
func (c *Controller) Due(now time.Time) bool {
	last := c.state.ComputedAt
	if last.IsZero() {
		return true
	}
	if next, ok := c.NextCron(); ok && !now.Before(next) {
		return true
	}
	return now.Sub(last).Seconds() >= c.cfg.RecomputeShare*c.cfg.Estimator.Window.Seconds()
}

// Tick computes the limit again when it is Due, and reports whether it
// did.
func (c *Controller) Tick(now time.Time) (bool, error) {
	if !c.Due(now) {
		return false, nil
	}
	return true, c.Recompute(now)
}

// Recompute computes the limit at now from the estimate (the cron calls
// it). Until the policy's inputs are estimated (the warm-up rule of
// docs/models.md §4) the limit is none. An error of the policy (an input
// queueing refuses) leaves the limit as it was, the estimate updated.
func (c *Controller) Recompute(now time.Time) error {
	est := c.est.Estimate(now)
	st := State{Policy: c.cfg.Policy, ComputedAt: now, Estimate: est, Threshold: c.cfg.Threshold.Seconds(), Limit: Limit{Unlimited: true}}
	if st.Threshold == 0 && est.ExternalReady {
		d, err := queueing.Threshold(c.cfg.LowShare, c.cfg.LowRatio, c.cfg.HighRatio, est.ExternalRunS)
		if err != nil {
			c.state.Estimate, c.state.ComputedAt = est, now
			return err
		}
		st.Threshold = d
	}
	n := c.entry.needs
	st.Warm = (!n.rates || est.RatesReady && est.ExternalReady) &&
		(!n.all || est.LocalReady) && (!n.threshold || st.Threshold > 0)
	if st.Warm {
		lim, err := c.entry.policy.Limit(Inputs{Load: est.Load, Threshold: st.Threshold, MaxK: c.cfg.MaxK})
		if err != nil {
			c.state.Estimate, c.state.ComputedAt = est, now
			return err
		}
		st.Limit = lim
	}
	if c.firstD == 0 {
		c.firstD = st.Threshold
	}
	c.state = st
	return nil
}

// Explain returns queueing.Explain over the current inputs and D: how
// PACP's K* comes out. While those are not estimated it returns an error
// wrapping ErrWarmingUp that says what they wait for.
func (c *Controller) Explain() (queueing.Explanation, error) {
	st := c.state
	e := st.Estimate
	if !e.RatesReady || !e.LocalReady || !e.ExternalReady || st.Threshold <= 0 {
		why := append([]string{}, e.Warming...)
		if st.ComputedAt.IsZero() {
			why = append(why, "never computed")
		} else if st.Threshold <= 0 {
			why = append(why, "threshold: the external mean is not known")
		}
		return queueing.Explanation{}, fmt.Errorf("%w: %s", ErrWarmingUp, strings.Join(why, "; "))
	}
	return queueing.Explain(e.Load, st.Threshold, c.cfg.MaxK)
}

// Decision is the answer to one external request.
type Decision struct {
	At        time.Time  `json:"at"`
	Admit     bool       `json:"admit"`
	Admitted  int        `json:"admitted"` // admitted external leases not yet finished, before this one
	Policy    PolicyName `json:"policy"`
	Limit     Limit      `json:"limit"`
	Threshold float64    `json:"threshold_s"`
	// Reason and Detail say why a request is rejected (empty when
	// admitted): scheduler.ReasonAdmissionLimit, and
	// "7 external leases admitted, limit 7 (pacp, D = 1,800 s)".
	Reason scheduler.Reason `json:"reason,omitempty"`
	Detail string           `json:"detail,omitempty"`
}

// String is the reason as a lease shows it:
// "admission-limit: 7 external leases admitted, limit 7 (pacp, D = 1,800 s)";
// "admitted" for an admission.
func (d Decision) String() string {
	if d.Admit {
		return "admitted"
	}
	return string(d.Reason) + ": " + d.Detail
}

// Decide answers an external request at now, when admitted external
// leases are admitted and not yet finished: admitted under the current
// limit, or rejected with scheduler.ReasonAdmissionLimit. It does not
// compute the limit again: call Tick (or Recompute) first.
func (c *Controller) Decide(now time.Time, admitted int) Decision {
	st := c.state
	d := Decision{At: now, Admit: st.Limit.Admits(admitted), Admitted: admitted, Policy: st.Policy, Limit: st.Limit, Threshold: st.Threshold}
	if d.Admit {
		return d
	}
	d.Reason = scheduler.ReasonAdmissionLimit
	what := string(st.Policy)
	if st.Policy == PACP {
		what += ", D = " + FormatSeconds(st.Threshold) + " s"
	}
	if st.Limit.Saturated {
		what += ", the local load saturates the cluster"
	}
	plural := "s"
	if admitted == 1 {
		plural = ""
	}
	d.Detail = fmt.Sprintf("%d external lease%s admitted, limit %d (%s)", admitted, plural, st.Limit.K, what)
	return d
}

// FormatSeconds writes a number of seconds as reasons do: whole seconds
// with thousands separators from 10 s on ("1,800"), one decimal below
// ("8.4").
func FormatSeconds(s float64) string {
	if math.Abs(s) < 10 {
		return strconv.FormatFloat(s, 'f', 1, 64)
	}
	digits := strconv.FormatFloat(math.Abs(math.Round(s)), 'f', 0, 64)
	var b strings.Builder
	if s < 0 {
		b.WriteByte('-')
	}
	for i, ch := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// Snapshot is a controller's state to save: the estimator's and the
// current limit. It round-trips through JSON.
type Snapshot struct {
	Estimator      EstimatorSnapshot `json:"estimator"`
	State          State             `json:"state"`
	FirstThreshold float64           `json:"first_threshold_s,omitempty"`
}

// Snapshot returns the controller's state (a copy).
func (c *Controller) Snapshot() Snapshot {
	return Snapshot{Estimator: c.est.Snapshot(), State: c.state, FirstThreshold: c.firstD}
}

// Restore replaces the controller's state with a snapshot's, as a
// daemon does at start. A snapshot of another policy restores the
// history only: the limit is computed again at the next Tick. A bad
// snapshot is an error wrapping ErrInvalid naming the field, and
// nothing changes.
func (c *Controller) Restore(s Snapshot) error {
	if l := s.State.Limit; l.K < 0 || !(s.State.Threshold >= 0) || !(s.FirstThreshold >= 0) {
		return fielderr.Wrap(ErrInvalid, "state", "limit %+v, threshold %v, first threshold %v: want K and thresholds not negative", l, s.State.Threshold, s.FirstThreshold)
	}
	if err := c.est.Restore(s.Estimator); err != nil {
		return prefix("estimator", err)
	}
	c.firstD = s.FirstThreshold
	if s.State.Policy != c.cfg.Policy || s.State.Threshold != c.cfg.Threshold.Seconds() && c.cfg.Threshold > 0 {
		c.reset()
		return nil
	}
	c.state = s.State
	if c.firstD == 0 {
		c.firstD = c.state.Threshold
	}
	return nil
}
