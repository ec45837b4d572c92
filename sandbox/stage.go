package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"rehome/backend/bytesize"

	"rehome/sandbox/link"
)

// A run's private folder (its "stage") holds what Podman mounts for it: a
// copy of the input, or a link to it. It lives under the user's runtime
// folder ($XDG_RUNTIME_DIR/rehome-stage, /run/rehome-stage for root: a
// tmpfs of the user's own, whose paths name no folder of the user's), or
// under the cache folder when the runtime folder lacks the room for a copy.
// The folder is 0700 with a random name; the run holds a lock on it while it
// lasts, and folders whose lock nobody holds (a crash, a kill -9) are
// removed at the next start.
const stageDirName = "rehome-stage"

// stageRoots are the places stages may be made, in order of preference.
func stageRoots(cache string) []string {
	var roots []string
	if os.Geteuid() == 0 {
		roots = append(roots, "/run")
	} else if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		roots = append(roots, d)
	} else if d := fmt.Sprintf("/run/user/%d", os.Getuid()); isOwnDir(d) {
		roots = append(roots, d)
	}
	roots = append(roots, cache)
	for i := range roots {
		roots[i] = filepath.Join(roots[i], stageDirName)
	}
	return roots
}

// stageRoots are where this engine's runs make their private folders.
func (e *Engine) stageRoots() []string {
	e.mu.Lock()
	base := e.stageBase
	e.mu.Unlock()
	if base != "" {
		return []string{base}
	}
	return stageRoots(e.cacheDir())
}

func isOwnDir(d string) bool {
	var st unix.Stat_t
	return unix.Stat(d, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Getuid()
}

// stage is one run's private folder, locked while the run lasts.
type stage struct {
	dir  string
	lock *os.File
}

// newStage makes a private folder for a run in the first root with room
// for need bytes (0: any).
func newStage(roots []string, need int64) (*stage, error) {
	var firstErr error
	for _, root := range roots {
		if err := os.MkdirAll(root, 0o700); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		os.Chmod(root, 0o700) // made by an older rehome, or under a wider umask
		if err := link.CheckPrivate(root); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if need > 0 {
			var fs unix.Statfs_t
			if unix.Statfs(root, &fs) == nil && int64(fs.Bavail)*int64(fs.Bsize) < need+64*MiB {
				continue
			}
		}
		st, err := lockedDir(root)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		return st, nil
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("no room for %s in %v", bytesize.Format(need), roots)
	}
	return nil, fmt.Errorf("create a private folder for the run: %w", firstErr)
}

// makingPrefix names a stage folder being made: made and locked under
// this name, then renamed, so that no sweep ever sees a new folder
// unlocked (sweepStages of every rehome process removes unlocked ones).
const makingPrefix = ".making-"

// makingGrace is how old a folder left with makingPrefix (a crash between
// its making and its rename) must be before a sweep takes it.
const makingGrace = 10 * time.Minute

// lockedDir makes a new private folder in root and locks it, as one step
// for any sweep: made under makingPrefix, locked, then renamed.
func lockedDir(root string) (*stage, error) {
	var b [12]byte
	rand.Read(b[:])
	name := hex.EncodeToString(b[:])
	tmp, dir := filepath.Join(root, makingPrefix+name), filepath.Join(root, name)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.Open(tmp)
	if err == nil {
		if err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			err = os.Rename(tmp, dir)
		}
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return nil, err
	}
	return &stage{dir: dir, lock: lock}, nil
}

// remove deletes the folder and what it holds, then drops the lock.
func (s *stage) remove() {
	if s == nil {
		return
	}
	os.RemoveAll(s.dir)
	s.lock.Close()
}

// sweepStages removes the private folders of runs that are over (no one
// holds their lock) and returns how many.
func sweepStages(roots []string) int {
	n := 0
	for _, root := range roots {
		if link.CheckPrivate(root) != nil {
			continue // another user's folder: nothing of ours to sweep
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if strings.HasPrefix(e.Name(), makingPrefix) {
				if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < makingGrace {
					continue // being made (it is locked only once made)
				}
			}
			f, err := os.Open(dir)
			if err != nil {
				continue
			}
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
				if os.RemoveAll(dir) == nil {
					n++
				}
			}
			f.Close()
		}
	}
	return n
}

// sweepOldRunFolders removes the run folders of older rehome versions
// (os.TempDir()/rehome-run-*, where a crash could leave a world-readable
// copy of an owner-only input) that are this user's and older than any run
// may last.
func sweepOldRunFolders() int {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "rehome-run-*"))
	n := 0
	for _, d := range dirs {
		var st unix.Stat_t
		if unix.Lstat(d, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() {
			continue
		}
		if time.Since(time.Unix(st.Mtim.Unix())) < 2*time.Hour {
			continue
		}
		if os.RemoveAll(d) == nil {
			n++
		}
	}
	return n
}

// sameDeviceFirst puts the stage roots on file system dev first (made if
// missing), so a hard link to a file there can be made in a run's folder.
func sameDeviceFirst(roots []string, dev uint64) []string {
	var same, other []string
	for _, r := range roots {
		var st unix.Stat_t
		if os.MkdirAll(r, 0o700) == nil && unix.Stat(r, &st) == nil && uint64(st.Dev) == dev {
			same = append(same, r)
		} else {
			other = append(other, r)
		}
	}
	return append(same, other...)
}

// hardLink links the open file f (device dev, inode ino) at dst, through
// /proc/self/fd so that it is this very file whatever its path names now;
// false when it cannot (another file system, protected_hardlinks).
func hardLink(f *os.File, dst string, dev, ino uint64) bool {
	if unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW) != nil {
		return false
	}
	var st unix.Stat_t
	if unix.Lstat(dst, &st) != nil || uint64(st.Dev) != dev || st.Ino != ino {
		os.Remove(dst)
		return false
	}
	return true
}

// idRange is the size of a run's user namespace: container ids 0…65535
// (root of the image's files and the sandbox user 10001 among them).
const idRange = 65536

// idBaseFirst and idSlots place the per-run host id ranges of rootful runs
// in [2^30, 2^31): far above any real user's or /etc/subuid's ids.
const (
	idBaseFirst = 1 << 30
	idSlots     = (1 << 30) / idRange
)

// pickIDBase chooses a host id range for a rootful run at random, avoiding
// the ones this process's runs hold.
func pickIDBase(inUse map[uint32]bool) uint32 {
	for {
		var b [4]byte
		rand.Read(b[:])
		slot := (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24) % idSlots
		base := uint32(idBaseFirst + slot*idRange)
		if !inUse[base] {
			return base
		}
	}
}

func formatID(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
