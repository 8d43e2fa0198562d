package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/bora-sched/bora/fielderr"
)

// How errors travel over the wire. The server turns a Service error into a
// status code and an Error body (errorStatus); the client turns a non-2xx
// answer back into an *APIError that errors.Is matches against the
// sentinels of types.go.

// ErrUnreachable is returned (wrapped) by the Client when it cannot connect
// to the daemon: no socket file, nobody listening, or the TCP server down.
var ErrUnreachable = errors.New("daemon unreachable")

// APIError is a non-2xx answer as the Client sees it.
type APIError struct {
	Status  int    // HTTP status code
	Message string // the Error of the body (or the body's start if not JSON)
	Field   string // the request field at fault, if the server named one
}

// Error reads like "400 Bad Request: duration: must be positive".
func (e *APIError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// Is makes errors.Is(err, ErrNotFound) (and ErrForbidden, ErrConflict,
// ErrUnavailable) true for the matching status codes.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	case ErrConflict:
		return e.Status == http.StatusConflict
	case ErrUnavailable:
		return e.Status == http.StatusServiceUnavailable
	}
	return false
}

// httpError is an answer the server decided itself (bad request body,
// unknown route, missing token...), with its status code.
type httpError struct {
	status int
	msg    string
	field  string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(field, format string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, field: field, msg: fmt.Sprintf(format, args...)}
}

// errorStatus maps an error to its status code and body. internal is true
// for errors the caller must not see (500): the body then says only
// "internal error" and the server logs the real error.
func errorStatus(err error) (status int, body Error, internal bool) {
	var he *httpError
	var fe *fielderr.Error
	switch {
	case errors.As(err, &he):
		return he.status, Error{Error: he.msg, Field: he.field}, false
	case errors.As(err, &fe):
		return http.StatusBadRequest, Error{Error: fe.Error(), Field: fe.Path}, false
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, Error{Error: err.Error()}, false
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, Error{Error: err.Error()}, false
	case errors.Is(err, ErrConflict):
		return http.StatusConflict, Error{Error: err.Error()}, false
	case errors.Is(err, ErrUnavailable):
		return http.StatusServiceUnavailable, Error{Error: err.Error()}, false
	case errors.Is(err, ErrNotApplied):
		return http.StatusInternalServerError, Error{Error: ErrNotApplied.Error()}, true
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, Error{Error: "the daemon did not answer in time"}, false
	}
	return http.StatusInternalServerError, Error{Error: "internal error (see the daemon's log)"}, true
}
