package fielderr

import "fmt"

// Error is a bad value of one field. Path is the field's path in the
// form or file ("hosts[0].uri", "energy.alpha", "class"); Msg says what
// is wrong with it. Near lists the paths that made Path needed, for a
// Path left out of a file (api.tcp for a missing api.tls_cert): a
// refusal of a missing key names the line of the first of them written.
// Err, when set, is the sentinel the error wraps (errors.Is holds for
// it); it is not part of the message.
type Error struct {
	Path string
	Msg  string
	Near []string
	Err  error
}

// Error formats the error as "path: message".
func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Unwrap returns the sentinel, or nil.
func (e *Error) Unwrap() error { return e.Err }

// New returns an Error at path with a formatted message.
func New(path, format string, args ...any) *Error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error at path with a formatted message that wraps
// sentinel.
func Wrap(sentinel error, path, format string, args ...any) *Error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}
