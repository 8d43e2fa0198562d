package queueing

import (
	"math"

	"github.com/bora-sched/bora/fielderr"
)

// Load is what PACP knows of a cluster (docs/models.md §4): the local
// leases' arrival rate lambda, service rate mu_l and the coefficient of
// variation theta of their service time; the external leases' mean
// duration omega (mu_e = 1/omega) and arrival rate Lambda. Rates are per
// second, durations seconds.
type Load struct {
	LocalRate        float64 `json:"local_rate"`         // lambda
	LocalServiceRate float64 `json:"local_service_rate"` // mu_l
	LocalCV          float64 `json:"local_cv"`           // theta
	ExternalMean     float64 `json:"external_mean"`      // omega
	ExternalRate     float64 `json:"external_rate"`      // Lambda
}

func (l Load) check() error {
	if err := checkNonNegative("local_rate", l.LocalRate); err != nil {
		return err
	}
	if err := checkPositive("local_service_rate", l.LocalServiceRate); err != nil {
		return err
	}
	if err := checkNonNegative("local_cv", l.LocalCV); err != nil {
		return err
	}
	if err := checkPositive("external_mean", l.ExternalMean); err != nil {
		return err
	}
	return checkNonNegative("external_rate", l.ExternalRate)
}

// LocalLoad returns rho_l = lambda / mu_l.
func (l Load) LocalLoad() float64 { return l.LocalRate / l.LocalServiceRate }

// Service returns the service-time law of one external lease, stretched
// by the local leases that preempt it (docs/models.md §4):
//
//	E(T) = omega / (1 - rho_l)
//	V(T) = rho_l / (1 - rho_l)^3 * (theta^2 + 1) / mu_e * omega
//
// as Service{Mean: E(T), CV: sqrt(V(T))/E(T)}, so that FitGamma gives the
// moment fit scale = V/E, shape = E²/V. With rho_l = 0 the service is
// deterministic (CV 0). It returns an ErrInvalid error naming the field
// for a bad input, and ErrSaturated (wrapped in an error naming
// "local_rate") when rho_l >= 1.
func (l Load) Service() (Service, error) {
	if err := l.check(); err != nil {
		return Service{}, err
	}
	rho := l.LocalLoad()
	if rho >= 1 {
		return Service{}, fielderr.Wrap(ErrSaturated, "local_rate", "rho_l = lambda/mu_l = %g >= 1: the local load alone saturates the cluster", rho)
	}
	omega := l.ExternalMean
	muE := 1 / omega
	e := omega / (1 - rho)
	v := rho / math.Pow(1-rho, 3) * (l.LocalCV*l.LocalCV + 1) / muE * omega
	s := Service{Mean: e, CV: math.Sqrt(v) / e}
	if err := s.check(); err != nil {
		return Service{}, err
	}
	return s, nil
}

// Limit is an admit limit: at most K admitted, unfinished external
// leases. K = 0 means admit none: even a lone external lease is expected
// to take longer than the threshold, or (Saturated) the local load alone
// keeps the cluster busy. Capped means E(R_K) stayed within the threshold
// up to the cap, which K then is: the true K* may be larger.
type Limit struct {
	K         int  `json:"k"`
	Capped    bool `json:"capped,omitempty"`
	Saturated bool `json:"saturated,omitempty"`
}

// KStar returns PACP's admit limit K* = max{K >= 1 : E(R_K) <= d}, K
// searched upwards from 1 to maxK (docs/models.md §4). The search stops at
// the first K with E(R_K) > d: E(R_K) grows with K, so no larger K
// qualifies. When E(R_1) = E(T) > d, K is 0; when E(R_maxK) <= d, K is
// maxK and Capped is set. It returns an ErrInvalid error naming the
// field of load, "threshold" (d must be finite and positive) or "max_k"
// (1..MaxK) for a bad input.
func KStar(load Load, d float64, maxK int) (Limit, error) {
	lim, _, err := search(load, d, maxK)
	return lim, err
}

func search(load Load, d float64, maxK int) (Limit, []float64, error) {
	if err := load.check(); err != nil {
		return Limit{}, nil, err
	}
	if err := checkPositive("threshold", d); err != nil {
		return Limit{}, nil, err
	}
	if maxK < 1 || maxK > MaxK {
		return Limit{}, nil, fielderr.Wrap(ErrInvalid, "max_k", "must be between 1 and %d, got %d", MaxK, maxK)
	}
	svc, err := load.Service()
	if err != nil {
		if load.LocalLoad() >= 1 {
			return Limit{Saturated: true}, nil, nil
		}
		return Limit{}, nil, err
	}
	s, err := newSolver(Queue{Rate: load.ExternalRate, Service: svc}, maxK)
	if err != nil {
		return Limit{}, nil, err
	}
	var rs []float64
	for k := 1; k <= maxK; k++ {
		r := s.next()
		rs = append(rs, r)
		if !(r <= d) {
			return Limit{K: k - 1}, rs, nil
		}
	}
	return Limit{K: maxK, Capped: true}, rs, nil
}

// Explanation is what `bora admission explain` shows: the inputs, the
// fitted service law, E(R_K) for K = 1..K*+1 (up to the cap) and the
// threshold.
type Explanation struct {
	Load      Load    `json:"load"`
	Threshold float64 `json:"threshold"`
	MaxK      int     `json:"max_k"`
	// LocalLoad is rho_l, ExternalLoad rho_e = Lambda*E(T).
	LocalLoad    float64 `json:"local_load"`
	ExternalLoad float64 `json:"external_load,omitempty"`
	// ServiceMean is E(T) and ServiceCV sqrt(V(T))/E(T); Shape and Scale
	// the Gamma fit (both 0 for a deterministic service, CV 0). All four
	// are 0 when Limit.Saturated.
	ServiceMean float64 `json:"service_mean,omitempty"`
	ServiceCV   float64 `json:"service_cv"`
	Shape       float64 `json:"shape,omitempty"`
	Scale       float64 `json:"scale,omitempty"`
	// ResponseTimes[K-1] is E(R_K), for K = 1..min(K*+1, MaxK).
	ResponseTimes []float64 `json:"response_times"`
	Limit         Limit     `json:"limit"`
}

// Explain returns how KStar reaches its answer for the same inputs; it
// returns the same errors.
func Explain(load Load, d float64, maxK int) (Explanation, error) {
	lim, rs, err := search(load, d, maxK)
	if err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Load: load, Threshold: d, MaxK: maxK, LocalLoad: load.LocalLoad(),
		ResponseTimes: rs, Limit: lim}
	if lim.Saturated {
		return ex, nil
	}
	svc, _ := load.Service()
	ex.ServiceMean, ex.ServiceCV = svc.Mean, svc.CV
	ex.ExternalLoad = load.ExternalRate * svc.Mean
	if svc.CV > 0 {
		if g, err := FitGamma(svc.Mean, svc.CV); err == nil {
			ex.Shape, ex.Scale = g.Shape, g.Scale
		}
	}
	return ex, nil
}

// RateLimit returns RACP's admit limit K = floor(mu_e / lambda), mu_e =
// 1/omega (docs/models.md §4), capped at maxK; with lambda = 0 it is
// maxK. It returns an ErrInvalid error naming "local_rate",
// "external_mean" or "max_k" for a bad input.
func RateLimit(localRate, externalMean float64, maxK int) (int, error) {
	if err := checkNonNegative("local_rate", localRate); err != nil {
		return 0, err
	}
	if err := checkPositive("external_mean", externalMean); err != nil {
		return 0, err
	}
	if maxK < 1 || maxK > MaxK {
		return 0, fielderr.Wrap(ErrInvalid, "max_k", "must be between 1 and %d, got %d", MaxK, maxK)
	}
	if localRate == 0 {
		return maxK, nil
	}
	k := math.Floor((1 / externalMean) / localRate)
	if k >= float64(maxK) {
		return maxK, nil
	}
	return int(k), nil
}

// Threshold returns PACP's waiting threshold D = (rate_low*u_low +
// (1-rate_low)*u_high) * omega (docs/models.md §4): rateLow is the share
// of low-urgency requests (0..1), uLow and uHigh the deadline ratios of
// low- and high-urgency requests (reference 4 and 2). It returns an
// ErrInvalid error naming "rate_low", "u_low", "u_high" or
// "external_mean" for a bad input.
func Threshold(rateLow, uLow, uHigh, omega float64) (float64, error) {
	if math.IsNaN(rateLow) || rateLow < 0 || rateLow > 1 {
		return 0, fielderr.Wrap(ErrInvalid, "rate_low", "must be a share between 0 and 1, got %v", rateLow)
	}
	if err := checkPositive("u_low", uLow); err != nil {
		return 0, err
	}
	if err := checkPositive("u_high", uHigh); err != nil {
		return 0, err
	}
	if err := checkPositive("external_mean", omega); err != nil {
		return 0, err
	}
	d := (rateLow*uLow + (1-rateLow)*uHigh) * omega
	if math.IsInf(d, 0) {
		return 0, fielderr.Wrap(ErrInvalid, "external_mean", "threshold overflows (%g * %g)", rateLow*uLow+(1-rateLow)*uHigh, omega)
	}
	return d, nil
}
