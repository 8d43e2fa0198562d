package config

import "github.com/bora-sched/bora/yamlstrict"

// Sentinel errors, wrapped by an *Error that names the file, the line and
// the key; check them with errors.Is. They are yamlstrict's, so that one
// errors.Is holds whichever reader refused the key.
var (
	// ErrUnknownKey is wrapped by an Error for a key bora does not know.
	ErrUnknownKey = yamlstrict.ErrUnknownKey
	// ErrDuplicateKey is wrapped by an Error for a key written twice in
	// the same mapping (a second top-level daemon: section, say): YAML
	// would keep the second silently.
	ErrDuplicateKey = yamlstrict.ErrDuplicateKey
)
