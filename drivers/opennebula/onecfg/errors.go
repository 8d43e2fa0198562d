package onecfg

import "errors"

// ErrConfig is wrapped by every *fielderr.Error of Config.Validate (and
// of the driver's New): a configuration that cannot work.
var ErrConfig = errors.New("opennebula: invalid configuration")
