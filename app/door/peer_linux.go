package door

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// checkPeer returns the process id on the other end of c, or ErrPeer when
// it runs as another user (its credentials as the kernel saw them at
// connect: SO_PEERCRED, which the peer cannot forge).
func checkPeer(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, fmt.Errorf("read the peer's credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, fmt.Errorf("%w (uid %d, not %d)", ErrPeer, cred.Uid, os.Getuid())
	}
	return int(cred.Pid), nil
}
