//go:build !linux

package door

import (
	"errors"
	"net"
)

// checkPeer refuses every peer where rehome cannot read its credentials.
func checkPeer(*net.UnixConn) (int, error) {
	return 0, errors.Join(ErrPeer, errors.New("peer credentials are checked on Linux only"))
}
