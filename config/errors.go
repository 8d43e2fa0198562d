package config

import "errors"

// Sentinel errors, wrapped by an *Error that names the file, the line and
// the key; check them with errors.Is.
var (
	// ErrUnknownKey is wrapped by an Error for a key bora does not know.
	ErrUnknownKey = errors.New("unknown key")
	// ErrDuplicateKey is wrapped by an Error for a key written twice in
	// the same mapping (a second top-level daemon: section, say): YAML
	// would keep the second silently.
	ErrDuplicateKey = errors.New("key written twice")
)
