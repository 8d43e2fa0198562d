//go:build !linux

package api

import (
	"errors"
	"net"
)

// peerUID is not implemented outside Linux: callers on the socket then need
// a bearer token.
func peerUID(*net.UnixConn) (int, error) {
	return -1, errors.New("peer credentials are only supported on linux")
}
