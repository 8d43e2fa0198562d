package yamlstrict

import (
	"errors"
	"fmt"
)

// Sentinel errors, wrapped by an *Error; check them with errors.Is.
var (
	// ErrUnknownKey is wrapped by the Error of Check or Keys for a key
	// the type or the list of allowed keys does not have.
	ErrUnknownKey = errors.New("unknown key")
	// ErrDuplicateKey is wrapped by the Error of Lines for a key written
	// twice in the same mapping.
	ErrDuplicateKey = errors.New("key written twice")
)

// Error is a refusal at one key of a YAML document: Line is where it is
// written, Path the dotted key path ("daemon.store", "hosts[0].cpu",
// "c_sets.VL.width"; "" for the document), Err what is wrong.
type Error struct {
	Line int
	Path string
	Err  error
}

// Error formats the error as "line N: path: cause".
func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %s: %v", e.Line, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Prefix returns err with prefix joined before its path when it is an
// *Error (a nested UnmarshalYAML reports paths relative to its node);
// other errors are returned as they are.
func Prefix(prefix string, err error) error {
	var se *Error
	if prefix == "" || !errors.As(err, &se) {
		return err
	}
	return &Error{Line: se.Line, Path: Join(prefix, se.Path), Err: se.Err}
}

// Join is the key path of key below prefix ("" for the top).
func Join(prefix, key string) string {
	switch {
	case prefix == "":
		return key
	case key == "":
		return prefix
	}
	return prefix + "." + key
}
