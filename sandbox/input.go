package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// input is the user's file, checked and held open for the run.
type input struct {
	hostPath string // absolute, links resolved
	name     string // its name under /mnt/data
	renamed  bool
	size     int64
	mode     os.FileMode
	dev, ino uint64
	f        *os.File
}

// openInput checks that path is a regular file the sandbox can show the
// code, and holds it open. A FIFO is opened without blocking and refused;
// a folder, a device or a socket is refused with what to do instead.
func openInput(path string) (*input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("input file %q: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("input file %q does not exist: check the path", path)
		}
		return nil, fmt.Errorf("input file %q: %w", path, err)
	}
	// A socket cannot be opened at all (ENXIO, "no such device or
	// address"): say what it is before trying.
	if st, err := os.Lstat(real); err == nil && st.Mode()&os.ModeSocket != 0 {
		return nil, fmt.Errorf("input %q is a Unix socket (a program's connection point), not a file: save the data it serves to a regular file and give that file", path)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("input file %q cannot be read: %w (check its permissions)", path, err)
		}
		if errors.Is(err, syscall.ENXIO) {
			return nil, fmt.Errorf("input %q is a socket or a device without a driver, not a file: save the data to a regular file and give that file", path)
		}
		return nil, fmt.Errorf("input file %q: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("input file %q: %w", path, err)
	}
	switch m := st.Mode(); {
	case m.IsDir():
		f.Close()
		return nil, fmt.Errorf("input %q is a folder: give one file (the sandbox shows the code a single file, never a folder)", path)
	case m&os.ModeNamedPipe != 0:
		f.Close()
		return nil, fmt.Errorf("input %q is a named pipe (FIFO), not a file: save the data to a regular file first", path)
	case !m.IsRegular():
		f.Close()
		return nil, fmt.Errorf("input %q is not a regular file (%s): give a regular file", path, m.Type())
	}
	sys := st.Sys().(*syscall.Stat_t)
	name, renamed := containerName(filepath.Base(real))
	return &input{
		hostPath: real,
		name:     name,
		renamed:  renamed,
		size:     st.Size(),
		mode:     st.Mode(),
		dev:      uint64(sys.Dev),
		ino:      sys.Ino,
		f:        f,
	}, nil
}

// othersCanRead reports whether the sandbox's unprivileged user — neither
// the file's owner nor in its group, inside the container — may read it.
func (in *input) othersCanRead() bool { return in.mode.Perm()&0o004 != 0 }

// stageCopyMax is the size up to which every input is copied into the
// run's private folder (a fresh inode under a neutral path, so the code's
// /proc/self/mountinfo names no host folder); a larger file readable by
// others is hard-linked there when it can be, else bind-mounted where it
// is (its path then shows there).
const stageCopyMax = 64 * MiB

// privateCopy copies the file into dir (the run's private folder, mode
// 0700) as a file of mode 0600 with a neutral name, and returns the copy as
// the input, under the original's name. The Podman service hands the copy
// to the sandbox's user (the mount's "U" option chowns it to the host uid
// that user maps to), so nobody else on the host reads it: a file readable
// only by its owner (mode 0600) is never shown to anyone else, and the
// user's own file is never changed.
func (in *input) privateCopy(dir string) (*input, error) {
	dst := filepath.Join(dir, "input")
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("copy the input for the sandbox: %w", err)
	}
	src := io.NewSectionReader(in.f, 0, in.size)
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return nil, fmt.Errorf("copying the input %q for the sandbox failed: %w", in.hostPath, err)
	}
	if err := out.Close(); err != nil {
		return nil, fmt.Errorf("copy the input for the sandbox: %w", err)
	}
	cp, err := openInput(dst)
	if err != nil {
		return nil, err
	}
	cp.name, cp.renamed = in.name, in.renamed
	return cp, nil
}

func (in *input) close() {
	if in != nil && in.f != nil {
		in.f.Close()
	}
}

// containerName is the file's name under /mnt/data: the host name where it
// can travel through the API and a mount table (valid UTF-8, no control
// characters), else the same with those replaced by "_".
func containerName(base string) (string, bool) {
	name := strings.ToValidUTF8(base, "_")
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '_'
		}
		return r
	}, name)
	if name == "." || name == ".." || name == "" {
		name = "input"
	}
	if len(name) > 255 {
		ext := filepath.Ext(name)
		if len(ext) > 32 {
			ext = ""
		}
		cut := 255 - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	return name, name != base
}
