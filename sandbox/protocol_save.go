package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// The bounds of an output's name: its relative path, and how many
// components it may have.
const (
	// maxNameLen bounds an output's relative path.
	maxNameLen = 1024
	maxDepth   = 9
)

// safeName checks an output's relative path as the container named it:
// forward slashes between components, none empty, "." or "..", bounded
// length and depth. Characters a host file name should not carry (control
// characters, backslashes, bytes that were not UTF-8) become "_"; the
// second result says so.
func safeName(name string) (string, bool, error) {
	switch {
	case name == "":
		return "", false, errors.New("an empty name")
	case len(name) > maxNameLen:
		return "", false, errors.New("a name too long")
	case strings.HasPrefix(name, "/"):
		return "", false, errors.New("an absolute name")
	}
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\\' || r == utf8.RuneError {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(name, "_"))
	parts := strings.Split(clean, "/")
	if len(parts) > maxDepth {
		return "", false, errors.New("folders nested too deep")
	}
	for _, p := range parts {
		switch {
		case p == "" || p == "." || p == "..":
			return "", false, fmt.Errorf("a name with a %q component", p)
		case len(p) > 255:
			return "", false, errors.New("a name component too long")
		}
	}
	return clean, clean != name, nil
}

// printable makes untrusted text safe to show: valid UTF-8, no control
// characters, at most max bytes.
func printable(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// saver writes outputs under one directory and nowhere else: every file is
// created new (O_EXCL), never through a link (O_NOFOLLOW), and through an
// os.Root so that no path — nor a link planted by anyone — leads outside.
type saver struct {
	dir  string
	root *os.Root
}

// newSaver creates dir (and its parents) if needed and opens it as the
// root of a run's outputs.
func newSaver(dir string) (*saver, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the output folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the output folder: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &saver{dir: abs, root: root}, nil
}

func (s *saver) create(rel string) (*os.File, string, error) {
	if d := path.Dir(rel); d != "." {
		if err := s.root.MkdirAll(d, 0o700); err != nil {
			return nil, "", fmt.Errorf("could not create its folder: %v", errors.Unwrap(err))
		}
	}
	f, err := s.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, "", errors.New("a file of that name is already in the output folder (not overwritten)")
		}
		return nil, "", fmt.Errorf("could not be saved: %v", err)
	}
	return f, filepath.Join(s.dir, filepath.FromSlash(rel)), nil
}

func (s *saver) close() {
	if s != nil && s.root != nil {
		s.root.Close()
	}
}
