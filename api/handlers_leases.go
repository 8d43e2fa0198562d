package api

import (
	"fmt"
	"net/http"
)

// leaseActions are the POST /v1/leases/{id}/{action} actions; true marks
// the admin ones, which the server refuses to non-admins itself before the
// Service (which checks too) is asked.
var leaseActions = map[string]bool{"cancel": false, "suspend": true, "resume": true, "migrate": true}

// createLease is POST /v1/leases: 201 with the lease, which may be in the
// rejected state (a successful call that says no). With ?dry_run=true it
// is a dry run (dryrun.go): 200 with the plan, nothing created.
func (s *Server) createLease(w http.ResponseWriter, r *http.Request) {
	dry, err := dryRunQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := readBody(w, r.Body, s.cfg.MaxBody)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req LeaseRequest
	if err := decodeJSON(b, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if dry {
		s.dryRun(w, r, req)
		return
	}
	l, err := s.svc.CreateLease(r.Context(), callerOf(r), req)
	if err == nil {
		w.Header().Set("Location", fmt.Sprintf("/%s/leases/%d", Version, l.ID))
	}
	s.answer(w, r, http.StatusCreated, l, err)
}

// listLeases is GET /v1/leases?state=&user=. The Service decides what the
// caller may see.
func (s *Server) listLeases(w http.ResponseWriter, r *http.Request) {
	q, err := queryParams(r, "state", "user")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ls, err := s.svc.ListLeases(r.Context(), callerOf(r), LeaseFilter{State: q["state"], User: q["user"]})
	if ls == nil {
		ls = []Lease{}
	}
	s.answer(w, r, http.StatusOK, ls, err)
}

// getLease is GET /v1/leases/{id}.
func (s *Server) getLease(w http.ResponseWriter, r *http.Request) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.svc.GetLease(r.Context(), callerOf(r), id)
	s.answer(w, r, http.StatusOK, l, err)
}

// cancelLease is DELETE /v1/leases/{id}.
func (s *Server) cancelLease(w http.ResponseWriter, r *http.Request) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.svc.CancelLease(r.Context(), callerOf(r), id)
	s.answer(w, r, http.StatusOK, l, err)
}

// leaseAction is POST /v1/leases/{id}/{cancel|suspend|resume|migrate}.
func (s *Server) leaseAction(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	adminOnly, known := leaseActions[action]
	if !known {
		s.writeError(w, r, &httpError{status: http.StatusNotFound,
			msg: fmt.Sprintf("no such lease action %q (want cancel, suspend, resume or migrate)", action)})
		return
	}
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c := callerOf(r)
	if adminOnly && !c.Admin {
		s.writeError(w, r, fmt.Errorf("%s lease %d: needs the admin role: %w", action, id, ErrForbidden))
		return
	}
	var l Lease
	if action == "cancel" {
		l, err = s.svc.CancelLease(r.Context(), c, id)
	} else {
		l, err = s.svc.LeaseAction(r.Context(), c, id, action)
	}
	s.answer(w, r, http.StatusOK, l, err)
}
