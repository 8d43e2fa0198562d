package admission

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/queueing"
)

// Kind is what an observation saw.
type Kind string

// The observations the estimator takes (docs/models.md §4, "Estimating
// the inputs").
const (
	LocalArrival    Kind = "local-arrival"    // a local request submitted
	ExternalArrival Kind = "external-arrival" // an external request submitted (admitted or not)
	LocalEnd        Kind = "local-end"        // a local lease done: its run time and share
	ExternalEnd     Kind = "external-end"     // an external lease done: its run time and share
)

// Observation is one event of the cluster's history. An end carries the
// lease's run time (RunS, seconds its VMs computed) and its share of the
// cluster (Share, 0 < Share <= 1: its VMs' cpu over the cluster's); its
// service time in the model is RunS × Share (docs/models.md §4).
type Observation struct {
	Kind  Kind      `json:"kind"`
	At    time.Time `json:"at"`
	RunS  float64   `json:"run_s,omitempty"`
	Share float64   `json:"share,omitempty"`
}

func (o Observation) check() error {
	switch o.Kind {
	case LocalArrival, ExternalArrival:
	case LocalEnd, ExternalEnd:
		if !(o.RunS >= 0) || math.IsInf(o.RunS, 0) {
			return fielderr.Wrap(ErrInvalid, "run_s", "must be a finite number of seconds, not negative, got %v", o.RunS)
		}
		if !(o.Share > 0 && o.Share <= 1) {
			return fielderr.Wrap(ErrInvalid, "share", "must be above 0 and at most 1, got %v", o.Share)
		}
	default:
		return fielderr.Wrap(ErrInvalid, "kind", "unknown observation %q (want %s, %s, %s or %s)", o.Kind, LocalArrival, ExternalArrival, LocalEnd, ExternalEnd)
	}
	if o.At.IsZero() {
		return fielderr.Wrap(ErrInvalid, "at", "missing time")
	}
	return nil
}

// EstimatorConfig is the sliding window and the warm-up rule.
type EstimatorConfig struct {
	// Window is how far back observations count.
	Window time.Duration `json:"window"`
	// Warmup is the history the rates need: until the estimator has
	// watched the cluster that long, its rates are not estimated.
	Warmup time.Duration `json:"warmup"`
	// MinSamples is the number of ends in the window a service time's
	// mean and cv need; with fewer, the last ones estimated are kept.
	MinSamples int `json:"min_samples"`
}

// Kept is the last service-time estimates made from enough samples,
// used while the window holds too few (N is how many they came from; 0:
// none yet).
type Kept struct {
	LocalN        int     `json:"local_n,omitempty"`
	LocalMeanS    float64 `json:"local_mean_s,omitempty"`
	LocalCV       float64 `json:"local_cv,omitempty"`
	ExternalN     int     `json:"external_n,omitempty"`
	ExternalMeanS float64 `json:"external_mean_s,omitempty"` // service time: run × share
	ExternalRunS  float64 `json:"external_run_s,omitempty"`  // run time alone
}

// Estimator turns the cluster's history into the inputs of the model.
// It is not safe for concurrent use.
type Estimator struct {
	cfg   EstimatorConfig
	since time.Time     // when it started watching
	obs   []Observation // by time; obs[head:] are live
	head  int
	kept  Kept
}

// NewEstimator starts an estimator watching from since. Config errors
// are those of Config.Validate.
func NewEstimator(cfg EstimatorConfig, since time.Time) (*Estimator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Estimator{cfg: cfg, since: since}, nil
}

func (c EstimatorConfig) validate() error {
	if c.Window <= 0 {
		return fielderr.Wrap(ErrInvalid, "window", "must be positive, got %s", c.Window)
	}
	if c.Warmup < 0 || c.Warmup > c.Window {
		return fielderr.Wrap(ErrInvalid, "warmup", "must be between 0 and the window (%s), got %s", c.Window, c.Warmup)
	}
	if c.MinSamples < 1 {
		return fielderr.Wrap(ErrInvalid, "min_samples", "must be at least 1, got %d", c.MinSamples)
	}
	return nil
}

// Observe records an observation; observations may come a little out of
// order (they are kept sorted by time). An invalid one is an error
// wrapping ErrInvalid naming the field, and is not recorded.
func (e *Estimator) Observe(o Observation) error {
	if err := o.check(); err != nil {
		return err
	}
	n := len(e.obs)
	if n == e.head || !o.At.Before(e.obs[n-1].At) {
		e.obs = append(e.obs, o)
	} else {
		i := e.head + sort.Search(n-e.head, func(i int) bool { return o.At.Before(e.obs[e.head+i].At) })
		e.obs = append(e.obs, Observation{})
		copy(e.obs[i+1:], e.obs[i:])
		e.obs[i] = o
	}
	e.prune(o.At)
	return nil
}

// prune forgets the observations at or before now - Window.
func (e *Estimator) prune(now time.Time) {
	cut := now.Add(-e.cfg.Window)
	for e.head < len(e.obs) && !e.obs[e.head].At.After(cut) {
		e.head++
	}
	if e.head > 1024 && e.head > len(e.obs)/2 {
		e.obs = append(e.obs[:0], e.obs[e.head:]...)
		e.head = 0
	}
}

// Estimate is the estimator's answer at a time.
type Estimate struct {
	At time.Time `json:"at"`
	// SpanS is the time the rates are measured over: the window, or the
	// history when it is shorter.
	SpanS float64 `json:"span_s"`
	// Load is the model's inputs (docs/models.md §4); ExternalRunS the
	// mean run time of external leases, omega of the derived threshold.
	Load         queueing.Load `json:"load"`
	ExternalRunS float64       `json:"external_run_s"`
	// Counts are the observations in the window, by kind.
	Counts map[Kind]int `json:"counts"`
	// What is estimated: the two rates (after the warm-up), the local and
	// the external service times (MinSamples ends, or kept ones).
	RatesReady    bool `json:"rates_ready"`
	LocalReady    bool `json:"local_ready"`
	ExternalReady bool `json:"external_ready"`
	// Warming says, for each input not estimated yet, what it waits for.
	Warming []string `json:"warming,omitempty"`
}

// Estimate returns the inputs at now from the observations in the window
// (now - Window, now] (docs/models.md §4): each rate is the number of
// arrivals over the window, or over the history when that is shorter; a
// service time's mean and cv are those of the ends in the window (the
// cv with the population standard deviation). It forgets the
// observations that left the window, and keeps the service-time
// estimates it makes from MinSamples ends or more for when the window
// holds fewer.
func (e *Estimator) Estimate(now time.Time) Estimate {
	e.prune(now)
	est := Estimate{At: now, Counts: map[Kind]int{}}
	var local, ext, extRun moments
	for _, o := range e.obs[e.head:] {
		if o.At.After(now) {
			break
		}
		est.Counts[o.Kind]++
		switch o.Kind {
		case LocalEnd:
			local.add(o.RunS * o.Share)
		case ExternalEnd:
			ext.add(o.RunS * o.Share)
			extRun.add(o.RunS)
		}
	}
	history := now.Sub(e.since)
	span := min(history, e.cfg.Window)
	est.SpanS = span.Seconds()
	if span > 0 && history >= e.cfg.Warmup {
		est.RatesReady = true
		est.Load.LocalRate = float64(est.Counts[LocalArrival]) / est.SpanS
		est.Load.ExternalRate = float64(est.Counts[ExternalArrival]) / est.SpanS
	} else {
		est.Warming = append(est.Warming, fmt.Sprintf("arrival rates: %s of history, need %s", history.Round(time.Second), e.cfg.Warmup))
	}
	if local.n >= e.cfg.MinSamples && local.mean() > 0 {
		e.kept.LocalN, e.kept.LocalMeanS, e.kept.LocalCV = local.n, local.mean(), local.cv()
	}
	if ext.n >= e.cfg.MinSamples && ext.mean() > 0 {
		e.kept.ExternalN, e.kept.ExternalMeanS, e.kept.ExternalRunS = ext.n, ext.mean(), extRun.mean()
	}
	if e.kept.ExternalN > 0 {
		est.ExternalReady = true
		est.Load.ExternalMean, est.ExternalRunS = e.kept.ExternalMeanS, e.kept.ExternalRunS
	} else {
		est.Warming = append(est.Warming, fmt.Sprintf("external service time: %d of %d ends", ext.n, e.cfg.MinSamples))
	}
	switch {
	case e.kept.LocalN > 0:
		est.LocalReady = true
		est.Load.LocalServiceRate, est.Load.LocalCV = 1/e.kept.LocalMeanS, e.kept.LocalCV
	case est.RatesReady && est.Load.LocalRate == 0 && est.ExternalReady:
		// No local load: mu_l and theta do not matter (rho_l = 0); mu_l
		// is set to mu_e so that the load is valid.
		est.LocalReady = true
		est.Load.LocalServiceRate = 1 / est.Load.ExternalMean
	default:
		est.Warming = append(est.Warming, fmt.Sprintf("local service time: %d of %d ends", local.n, e.cfg.MinSamples))
	}
	return est
}

// moments sums a sample for its mean and population cv.
type moments struct {
	n      int
	s, ss  float64
	shift  float64 // the first value: sums of x - shift keep the variance exact
	hasOne bool
}

func (m *moments) add(x float64) {
	if !m.hasOne {
		m.shift, m.hasOne = x, true
	}
	d := x - m.shift
	m.n++
	m.s += d
	m.ss += d * d
}

func (m moments) mean() float64 {
	if m.n == 0 {
		return 0
	}
	return m.shift + m.s/float64(m.n)
}

func (m moments) cv() float64 {
	if m.n == 0 {
		return 0
	}
	n := float64(m.n)
	v := m.ss/n - (m.s/n)*(m.s/n)
	if v <= 0 {
		return 0
	}
	return math.Sqrt(v) / m.mean()
}

// EstimatorSnapshot is an estimator's whole state: restoring it gives an
// estimator that answers as the saved one did. It round-trips through
// JSON.
type EstimatorSnapshot struct {
	Since        time.Time     `json:"since"`
	Observations []Observation `json:"observations"`
	Kept         Kept          `json:"kept"`
}

// Snapshot returns the estimator's state (a copy).
func (e *Estimator) Snapshot() EstimatorSnapshot {
	return EstimatorSnapshot{Since: e.since, Observations: append([]Observation{}, e.obs[e.head:]...), Kept: e.kept}
}

// Restore replaces the estimator's state with a snapshot's. A bad
// observation or estimate is an error wrapping ErrInvalid naming it
// ("observations[3].share"), and nothing changes.
func (e *Estimator) Restore(s EstimatorSnapshot) error {
	for i, o := range s.Observations {
		if err := o.check(); err != nil {
			return prefix(fmt.Sprintf("observations[%d]", i), err)
		}
	}
	k := s.Kept
	for _, f := range []struct {
		name string
		n    int
		v    []float64
	}{{"kept.local", k.LocalN, []float64{k.LocalMeanS, k.LocalCV}}, {"kept.external", k.ExternalN, []float64{k.ExternalMeanS, k.ExternalRunS}}} {
		if f.n < 0 || f.n > 0 && !(f.v[0] > 0 && f.v[1] >= 0 && !math.IsInf(f.v[0], 0) && !math.IsInf(f.v[1], 0)) {
			return fielderr.Wrap(ErrInvalid, f.name, "n %d with estimates %v: want positive, finite values", f.n, f.v)
		}
	}
	obs := append([]Observation{}, s.Observations...)
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].At.Before(obs[j].At) })
	e.since, e.obs, e.head, e.kept = s.Since, obs, 0, k
	return nil
}

// prefix puts path in front of a field error's path.
func prefix(path string, err error) error {
	if fe, ok := err.(*fielderr.Error); ok {
		c := *fe
		c.Path = path + "." + fe.Path
		return &c
	}
	return err
}
