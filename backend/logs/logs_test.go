package logs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritesTheFile(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	l, closeFn := New(Options{Dir: dir, Stderr: &stderr})
	l.Info("hello", "n", 1)
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil || !strings.Contains(string(b), `"msg":"hello"`) {
		t.Fatalf("log file: %q, %v", b, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr got %q", stderr.String())
	}
}

// A log file that cannot be written sends the lines to stderr, with the
// reason, instead of nowhere. (Run as root, a mode cannot refuse: a file
// in the folder's place, or a folder in the file's, can.)
func TestFallsBackToStderr(t *testing.T) {
	for name, dir := range map[string]func(t *testing.T) string{
		"the data folder is a file": func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "data")
			os.WriteFile(p, nil, 0o600)
			return p
		},
		"the log file is a folder": func(t *testing.T) string {
			d := t.TempDir()
			os.Mkdir(filepath.Join(d, FileName), 0o700)
			return d
		},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			l, closeFn := New(Options{Dir: dir(t), Stderr: &stderr})
			defer closeFn()
			l.Info("still heard", "k", "v")
			out := stderr.String()
			if !strings.Contains(out, "cannot write the log file") || !strings.Contains(out, "still heard") {
				t.Errorf("stderr: %q", out)
			}
		})
	}
}

type brokenFile struct{ fail bool }

func (b *brokenFile) Write(p []byte) (int, error) {
	if b.fail {
		return 0, errors.New("no space left on device")
	}
	return len(p), nil
}

// A file that stops taking lines later (a full disk) sends them to stderr,
// saying so once, and back to the file when it takes them again.
func TestFallsBackWhenAWriteFails(t *testing.T) {
	file := &brokenFile{}
	var stderr bytes.Buffer
	w := &fallback{file: file, stderr: &stderr}
	w.Write([]byte("one\n"))
	file.fail = true
	w.Write([]byte("two\n"))
	w.Write([]byte("three\n"))
	file.fail = false
	w.Write([]byte("four\n"))
	out := stderr.String()
	if strings.Count(out, "cannot write the log file") != 1 || !strings.Contains(out, "two\nthree\n") || strings.Contains(out, "one") || strings.Contains(out, "four") {
		t.Errorf("stderr: %q", out)
	}
}
