package gateway

import "errors"

// The errors of the package.
var (
	// ErrConfig is wrapped by every refusal of a configuration (a
	// *fielderr.Error names the key).
	ErrConfig = errors.New("bad gateway configuration")
	// ErrStore is wrapped by the errors of the gateway's lease map: a
	// file that is not a gateway map, or a record that does not decode.
	ErrStore = errors.New("gateway store")
	// ErrNoCluster is wrapped by CreateLease when no cluster is up to
	// take a lease (the api server answers 503: try again later).
	ErrNoCluster = errors.New("no cluster answers")
)
