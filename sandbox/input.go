package sandbox

import (
	"errors"
	"fmt"
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
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("input file %q cannot be read: %w (check its permissions)", path, err)
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
		dev:      uint64(sys.Dev),
		ino:      sys.Ino,
		f:        f,
	}, nil
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
