package api

import (
	"fmt"
	"net/http"
)

// hostActions are the POST /v1/hosts/{name}/{action} actions, all admin
// operations.
var hostActions = map[string]bool{"enable": true, "disable": true, "on": true, "off": true}

// listHosts is GET /v1/hosts.
func (s *Server) listHosts(w http.ResponseWriter, r *http.Request) {
	hs, err := s.svc.ListHosts(r.Context(), callerOf(r))
	if hs == nil {
		hs = []Host{}
	}
	s.answer(w, r, http.StatusOK, hs, err)
}

// getHost is GET /v1/hosts/{name}.
func (s *Server) getHost(w http.ResponseWriter, r *http.Request) {
	h, err := s.svc.GetHost(r.Context(), callerOf(r), r.PathValue("name"))
	s.answer(w, r, http.StatusOK, h, err)
}

// hostAction is POST /v1/hosts/{name}/{enable|disable|on|off}; the server
// refuses it to non-admins before the Service (which checks too) is asked.
func (s *Server) hostAction(w http.ResponseWriter, r *http.Request) {
	name, action := r.PathValue("name"), r.PathValue("action")
	if !hostActions[action] {
		s.writeError(w, r, &httpError{status: http.StatusNotFound,
			msg: fmt.Sprintf("no such host action %q (want enable, disable, on or off)", action)})
		return
	}
	c := callerOf(r)
	if !c.Admin {
		s.writeError(w, r, fmt.Errorf("%s host %s: needs the admin role: %w", action, name, ErrForbidden))
		return
	}
	h, err := s.svc.HostAction(r.Context(), c, name, action)
	s.answer(w, r, http.StatusOK, h, err)
}
