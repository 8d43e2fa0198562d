package api

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sirupsen/logrus"
)

// The request pipeline: ServeHTTP finds the route (for the metrics label),
// recovers panics, authenticates the caller (all routes but /healthz),
// answers unknown routes and wrong methods with JSON, and hands the rest
// to the ServeMux.

const (
	routeHealth    = "GET /healthz"
	routeUnmatched = "unmatched"
)

func (s *Server) buildMux() {
	v := "/" + Version
	handlers := map[string]http.HandlerFunc{
		"POST " + v + "/leases":                s.createLease,
		"GET " + v + "/leases":                 s.listLeases,
		"GET " + v + "/leases/{id}":            s.getLease,
		"DELETE " + v + "/leases/{id}":         s.cancelLease,
		"POST " + v + "/leases/{id}/{action}":  s.leaseAction,
		"GET " + v + "/hosts":                  s.listHosts,
		"GET " + v + "/hosts/{name}":           s.getHost,
		"POST " + v + "/hosts/{name}/{action}": s.hostAction,
		"GET " + v + "/schedule":               s.schedule,
		"GET " + v + "/stats":                  s.stats,
		"GET " + v + "/admission":              s.admission,
		routeHealth:                            s.health,
		"GET /metrics":                         promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}).ServeHTTP,
	}
	s.mux = http.NewServeMux()
	s.routes = map[string]bool{}
	for pattern, h := range handlers {
		s.mux.HandleFunc(pattern, h)
		s.routes[pattern] = true
	}
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	_, pattern := s.mux.Handler(r)
	route := pattern
	if !s.routes[route] {
		route = routeUnmatched
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() { s.done(sw, r, route, time.Since(start)) }()
	defer s.recoverPanic(sw, r)

	if route != routeHealth {
		c, err := s.authenticate(r)
		if err != nil {
			s.writeError(sw, r, err)
			return
		}
		r = r.WithContext(withCaller(r.Context(), c))
	}
	if pattern == "" {
		s.noRoute(sw, r)
		return
	}
	if err := checkContentType(r); err != nil {
		s.writeError(sw, r, err)
		return
	}
	s.mux.ServeHTTP(sw, r)
}

// checkContentType refuses (415) a request that has a body but does not
// say it is JSON: the API reads only JSON, and a form or a text body that
// happens to parse is a client's mistake.
func checkContentType(r *http.Request) error {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	if ct == "" {
		return &httpError{status: http.StatusUnsupportedMediaType,
			msg: "Content-Type header missing: a request with a body must send Content-Type: application/json"}
	}
	return &httpError{status: http.StatusUnsupportedMediaType,
		msg: fmt.Sprintf("Content-Type %q: a request with a body must send Content-Type: application/json", ct)}
}

// done counts and logs an answered request.
func (s *Server) done(w *statusWriter, r *http.Request, route string, d time.Duration) {
	code := w.code
	if code == 0 {
		code = http.StatusOK
	}
	s.metrics.observe(route, code, d)
	s.log.WithFields(logrus.Fields{
		"method": r.Method, "path": r.URL.Path, "route": route, "status": code,
		"duration_ms": float64(d.Microseconds()) / 1000, "user": callerOf(r).User,
	}).Debug("api request")
}

// recoverPanic keeps a panicking handler from killing the daemon: it logs
// the panic with its stack and answers 500 if nothing was written yet.
func (s *Server) recoverPanic(w *statusWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	s.log.WithFields(logrus.Fields{"method": r.Method, "path": r.URL.Path, "panic": fmt.Sprint(v),
		"stack": string(debug.Stack())}).Error("panic in api handler")
	if w.code == 0 {
		writeJSON(w, http.StatusInternalServerError, Error{Error: "internal error (see the daemon's log)"})
	} else {
		w.code = http.StatusInternalServerError // for the metrics: the answer is cut
	}
}

// noRoute answers a request no pattern matches: 404, or 405 when the path
// exists with other methods, as JSON.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	h, _ := s.mux.Handler(r)
	rec := &headerRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.code == http.StatusMethodNotAllowed {
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		writeJSON(w, rec.code, Error{Error: fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow)})
		return
	}
	writeJSON(w, http.StatusNotFound, Error{Error: fmt.Sprintf("no such route: %s %s", r.Method, r.URL.Path)})
}

// writeError answers err with its status code and an Error body; errors
// the caller must not see are logged.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body, internal := errorStatus(err)
	if internal {
		s.log.WithError(err).WithFields(logrus.Fields{"method": r.Method, "path": r.URL.Path,
			"user": callerOf(r).User}).Error("api request failed")
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bora"`)
	}
	writeJSON(w, status, body)
}

// answer writes v with status, or err.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"internal error: cannot encode the answer"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headerRecorder keeps the status and headers of the ServeMux's own 404
// and 405 answers and drops their text bodies.
type headerRecorder struct {
	header http.Header
	code   int
}

func (r *headerRecorder) Header() http.Header { return r.header }
func (r *headerRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *headerRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return len(b), nil
}

// queryParams reads the query, refusing parameters not in allowed and
// parameters given twice.
func queryParams(r *http.Request, allowed ...string) (map[string]string, error) {
	q := r.URL.Query()
	out := map[string]string{}
	for k, vs := range q {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok && len(allowed) == 0 {
			return nil, badRequest(k, "%s: unknown query parameter (this route takes none)", k)
		}
		if !ok {
			return nil, badRequest(k, "%s: unknown query parameter (known: %s)", k, strings.Join(allowed, ", "))
		}
		if len(vs) > 1 {
			return nil, badRequest(k, "%s: given %d times", k, len(vs))
		}
		out[k] = vs[0]
	}
	return out, nil
}
