package workload

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors. Every error a reader returns about its input is a
// *ParseError that wraps one of ErrSyntax, ErrBadValue, ErrUnsupported or
// ErrInvalidRequest, so callers can test with errors.Is and still print the
// position with errors.As.
var (
	// ErrUnknownFormat is returned by ReadFile when the file's extension
	// names no format this package reads.
	ErrUnknownFormat = errors.New("unknown workload format")

	// ErrSyntax is wrapped by a ParseError when a line or document is
	// malformed: a wrong number of fields, text that is not XML, JSON or
	// YAML, or an unknown field or element.
	ErrSyntax = errors.New("malformed workload")

	// ErrBadValue is wrapped by a ParseError when a field is present but
	// its value cannot be read or is out of range: a non-number, a bad
	// time, an unknown kind or class, a negative count.
	ErrBadValue = errors.New("bad value")

	// ErrUnsupported is wrapped by a ParseError when the input is valid in
	// its format but cannot be expressed as a scheduler.Request, such as an
	// LWF lease whose node-sets ask for different capacities.
	ErrUnsupported = errors.New("unsupported workload feature")

	// ErrInvalidRequest is wrapped by a ParseError when every field parsed
	// but the resulting request fails scheduler.Request.Validate; the
	// *fielderr.Error is wrapped too.
	ErrInvalidRequest = errors.New("invalid lease request")
)

// ParseError is a problem at a known place in a workload file.
type ParseError struct {
	File  string // the name given to the reader (a path for ReadFile)
	Line  int    // 1-based line; 0 when unknown
	Field string // e.g. "field 9 (requested time)", "leases[2].vms", "lease-request[1]/lease@preemptible"
	Msg   string // what is wrong, e.g. `"abc" is not a number`
	Err   error  // the sentinel: ErrSyntax, ErrBadValue, ErrUnsupported or ErrInvalidRequest
	Cause error  // the underlying error, if any (e.g. a *fielderr.Error)
}

// Error formats the error as "file:line: field: message".
func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Unwrap returns the sentinel and the cause, for errors.Is and errors.As.
func (e *ParseError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// pos is where in a file a value comes from; it builds ParseErrors.
type pos struct {
	file  string
	line  int
	field string
}

func (p pos) at(field string) pos { p.field = field; return p }

func (p pos) errorf(sentinel error, format string, args ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.line, Field: p.field, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

func (p pos) syntax(format string, args ...any) *ParseError {
	return p.errorf(ErrSyntax, format, args...)
}

func (p pos) bad(format string, args ...any) *ParseError {
	return p.errorf(ErrBadValue, format, args...)
}
