package api

import (
	"context"
	"net/http"
	"time"
)

// LeasePlan is the answer to a dry run (POST /v1/leases?dry_run=true):
// what would become of the request if it were submitted now. Nothing is
// created or changed.
type LeasePlan struct {
	// State is the state the lease would be in: rejected (Reason and
	// Detail say why), queued (a best-effort lease not planned yet), or a
	// planned state (scheduled, preparing, running).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Start and End are when its plan would begin and end (absent without
	// a plan), Hosts where it would begin.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	Hosts []string  `json:"hosts,omitempty"`
}

// LeaseDryRunner is a Service that answers dry runs (the daemon does).
type LeaseDryRunner interface {
	// DryRunLease says what CreateLease would do with r now, without
	// doing it: the same validation errors, the admission checks that
	// depend on nothing but the cluster (admission.availability), the
	// scheduler's decision.
	DryRunLease(ctx context.Context, c Caller, r LeaseRequest) (LeasePlan, error)
}

// dryRun answers POST /v1/leases?dry_run=true with 200 and the plan.
func (s *Server) dryRun(w http.ResponseWriter, r *http.Request, req LeaseRequest) {
	dr, ok := s.svc.(LeaseDryRunner)
	if !ok {
		s.writeError(w, r, &httpError{status: http.StatusNotImplemented, msg: "this server does not answer dry runs"})
		return
	}
	p, err := dr.DryRunLease(r.Context(), callerOf(r), req)
	s.answer(w, r, http.StatusOK, p, err)
}

// dryRunQuery reads the dry_run query parameter of POST /v1/leases.
func dryRunQuery(r *http.Request) (bool, error) {
	q, err := queryParams(r, "dry_run")
	if err != nil {
		return false, err
	}
	switch q["dry_run"] {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, badRequest("dry_run", "dry_run: %q is not true or false", q["dry_run"])
}

// DryRunLease asks what would become of a lease request submitted now
// (POST /v1/leases?dry_run=true), creating nothing.
func (c *Client) DryRunLease(ctx context.Context, r LeaseRequest) (LeasePlan, error) {
	var p LeasePlan
	err := c.do(ctx, http.MethodPost, "/leases?dry_run=true", r, &p)
	return p, err
}
