package admission

import "errors"

// ErrUnknownPolicy is wrapped by the error of ParsePolicy (and of
// Config.Validate) for a name that is not a policy; the message names it
// and lists the known ones.
var ErrUnknownPolicy = errors.New("unknown admission policy")

// ErrInvalid is wrapped by the errors of Config.Validate, of
// Estimator.Observe and of Restore for a bad value: the error is a
// *fielderr.Error whose Path names the setting or the field.
var ErrInvalid = errors.New("invalid admission input")

// ErrWarmingUp is returned by Controller.Explain while the inputs PACP
// needs are not estimated yet (docs/models.md §4, the warm-up rule); the
// message says what each waits for.
var ErrWarmingUp = errors.New("admission inputs still warming up")
