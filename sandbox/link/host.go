package link

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// What this machine offers the services rehome starts.

// PrivateRuntimes are the runtimes a private service is tried with: crun
// starts containers fastest; runc works where crun 1.8 refuses hybrid
// cgroup hierarchies.
var PrivateRuntimes = []string{"crun", "runc"}

// KernelRelease is this machine's kernel release (uname -r), "" when
// uname fails.
func KernelRelease() string {
	var uts syscall.Utsname
	if syscall.Uname(&uts) != nil {
		return ""
	}
	rel := make([]byte, 0, 65)
	for _, c := range uts.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	return string(rel)
}

// OverlaySupported reports whether the kernel lets rootless Podman use
// native overlay (Linux 5.13 or newer).
func OverlaySupported() bool {
	major, minor := kernelVersion()
	return major > 5 || (major == 5 && minor >= 13)
}

func kernelVersion() (major, minor int) {
	parts := strings.SplitN(KernelRelease(), ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(parts[0])
	minor, _ = strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor
}

// CheckPrivate checks that no other user can reach into root: a folder
// (not a link) of this user's, mode 0700, in a folder that only this user
// or root may rename entries of (not writable by others, or sticky). In a
// runtime folder others may write (a misconfigured $XDG_RUNTIME_DIR),
// another user could plant rehome-stage, or rename a run's folder away so
// that its private copy outlives the run; such a root is not used.
func CheckPrivate(root string) error {
	var st, pst unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return err
	}
	euid := uint32(os.Geteuid())
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != euid || st.Mode&0o077 != 0 {
		return fmt.Errorf("%s is not a private folder of this user's (owner %d, mode %o)", root, st.Uid, st.Mode)
	}
	parent := filepath.Dir(root)
	if err := unix.Stat(parent, &pst); err != nil {
		return err
	}
	if (pst.Uid != euid && pst.Uid != 0) || (pst.Mode&0o022 != 0 && pst.Mode&unix.S_ISVTX == 0) {
		return fmt.Errorf("%s may be changed by other users (owner %d, mode %o)", parent, pst.Uid, pst.Mode)
	}
	return nil
}
