package api

import (
	"context"
	"net/http"
	"time"
)

// Admission is the admission stage of external leases as the daemon runs
// it (docs/models.md §4): GET /v1/admission, the admission part of
// GET /v1/stats (without Explain) and `bora admission explain`.
type Admission struct {
	Policy string `json:"policy"`
	// ComputedAt is when the limit was last computed (zero: never).
	ComputedAt time.Time `json:"computed_at"`
	// Warm says the policy's inputs are estimated; Warming says what each
	// input not estimated yet waits for (the warm-up rule).
	Warm    bool     `json:"warm"`
	Warming []string `json:"warming,omitempty"`
	// SpanS is the time the rates are measured over (the window, or the
	// history when shorter); Observations the observations in the window
	// by kind (local-arrival, external-arrival, local-end, external-end).
	SpanS        float64        `json:"span_s"`
	Observations map[string]int `json:"observations"`
	// Held is the observations the estimator holds now, Since when its
	// history began (kept across restarts, from the store).
	Held   int             `json:"observations_held"`
	Since  time.Time       `json:"since"`
	Inputs AdmissionInputs `json:"inputs"`
	// Limit is K, the most admitted external leases not yet finished;
	// nil: no limit (accept-all, or warming up).
	Limit     *int `json:"limit"`
	Capped    bool `json:"capped,omitempty"`
	Saturated bool `json:"saturated,omitempty"`
	// Admitted is the external leases admitted and not finished now.
	Admitted int `json:"admitted"`
	// ThresholdS is D in seconds (0: not known yet).
	ThresholdS float64 `json:"threshold_s"`
	// Over the finished external leases the daemon keeps (see
	// jobs.lease_retention), D the current one: ViolationRate is
	// VR = (a*v + r)/(a + r) × 100 and CompletedPercent the share done,
	// in percent; Rejections counts the rejected ones by reason.
	ViolationRate    float64        `json:"violation_rate"`
	CompletedPercent float64        `json:"external_completed_percent"`
	Rejections       map[string]int `json:"rejections"`
	// Explain is how PACP's K* comes out (GET /v1/admission only).
	Explain *AdmissionExplain `json:"explain,omitempty"`
}

// AdmissionInputs are the model's inputs as estimated (rates per second,
// times in seconds).
type AdmissionInputs struct {
	LocalRate         float64 `json:"local_rate"`           // lambda
	LocalServiceMeanS float64 `json:"local_service_mean_s"` // 1/mu_l
	LocalCV           float64 `json:"local_cv"`             // theta
	ExternalMeanS     float64 `json:"external_mean_s"`      // omega: service time, run × share
	ExternalRate      float64 `json:"external_rate"`        // Lambda
	ExternalRunS      float64 `json:"external_run_s"`       // mean run time (of the derived D)
}

// AdmissionExplain is the computation of K* (queueing.Explain): the loads,
// the service law, E(R_K) for K = 1..K*+1 (up to the cap) and K*. While
// the inputs are warming up, Error says what they wait for and the rest
// is empty.
type AdmissionExplain struct {
	Error          string    `json:"error,omitempty"`
	LocalLoad      float64   `json:"local_load"`
	ExternalLoad   float64   `json:"external_load"`
	ServiceMeanS   float64   `json:"service_mean_s"`
	ServiceCV      float64   `json:"service_cv"`
	ResponseTimesS []float64 `json:"response_times_s"`
	KStar          int       `json:"k_star"`
	MaxK           int       `json:"max_k"`
}

// Admission returns the admission stage's state and how its limit comes
// out; a daemon with no admission policy answers 404.
func (c *Client) Admission(ctx context.Context) (Admission, error) {
	var a Admission
	err := c.do(ctx, http.MethodGet, "/admission", nil, &a)
	return a, err
}

// admission is GET /v1/admission.
func (s *Server) admission(w http.ResponseWriter, r *http.Request) {
	if _, err := queryParams(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	a, err := s.svc.Admission(r.Context(), callerOf(r))
	s.answer(w, r, http.StatusOK, a, err)
}
