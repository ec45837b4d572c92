package door

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// dialWait bounds a client's connect: a live holder accepts at once.
const dialWait = 2 * time.Second

// socketDirs are the folders a data folder's socket may be in, in the
// order a client tries them: the user's runtime folder ($XDG_RUNTIME_DIR,
// which a desktop session makes 0700), then rehome's own 0700 folder in
// the temporary folder, for a session without one (ssh, runuser) — so a
// terminal without a runtime folder still finds a window that has one.
func socketDirs() []string {
	var dirs []string
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dirs = append(dirs, filepath.Join(rt, "rehome"))
	}
	return append(dirs, filepath.Join(os.TempDir(), "rehome-"+strconv.Itoa(os.Getuid())))
}

// socketName is the socket's file name for data folder dir: a hash of its
// absolute, resolved path (a path may be longer than a socket's 108 bytes).
func socketName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sum := sha256.Sum256([]byte(dir))
	return "door-" + hex.EncodeToString(sum[:12]) + ".sock"
}

// ownDir makes d (its parent must exist) a folder only this user can
// enter, or says why it is not one: not a symbolic link, owned by this
// user, no access for group or others.
func ownDir(d string) error {
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	st, err := os.Lstat(d)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.IsDir():
		return fmt.Errorf("%s is not a folder (remove it)", d)
	case !ok || int(sys.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user (remove it, or set XDG_RUNTIME_DIR)", d)
	case st.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("%s is open to other users: %w", d, err)
		}
	}
	return nil
}

// Listen opens the door of data folder dir: a unix socket, owner-only, in
// the first of the socket folders that can be made owner-only. Only the
// process that holds the data folder's database may call it: any socket
// already there is a dead holder's, and is replaced.
func Listen(dir string) (*net.UnixListener, error) {
	var errs []error
	for _, d := range socketDirs() {
		if err := ownDir(d); err != nil {
			errs = append(errs, err)
			continue
		}
		path := filepath.Join(d, socketName(dir))
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// The folder is already 0700; the socket is made 0600 too.
		if err := os.Chmod(path, 0o600); err != nil {
			ln.Close()
			errs = append(errs, err)
			continue
		}
		return ln, nil
	}
	return nil, fmt.Errorf("open rehome's socket for the terminal: %w", errors.Join(errs...))
}

// Dial connects to the holder of data folder dir, checking that it runs
// as this user. ErrNoHolder: none listens (no socket, or a dead process's).
func Dial(dir string) (*net.UnixConn, error) {
	name := socketName(dir)
	for _, d := range socketDirs() {
		path := filepath.Join(d, name)
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		c, err := net.DialTimeout("unix", path, dialWait)
		if err != nil {
			continue // ECONNREFUSED: a stale socket; EACCES: not ours
		}
		uc := c.(*net.UnixConn)
		if _, err := checkPeer(uc); err != nil {
			uc.Close()
			return nil, err
		}
		return uc, nil
	}
	return nil, ErrNoHolder
}
