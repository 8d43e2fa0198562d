package federation

import "errors"

// ErrFile is wrapped by every error about a federation file (FileError).
var ErrFile = errors.New("invalid federation file")

// ErrSetup is wrapped by the errors Run returns for a setup it cannot run:
// no cluster, two clusters of one name, a bad speed or cost, an unknown
// gateway policy.
var ErrSetup = errors.New("invalid federation")
