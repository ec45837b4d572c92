package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// The folder holds only what was committed: no temporary file is left,
// whether the write succeeded or failed.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteFileModes(t *testing.T) {
	old := syscall.Umask(0o077) // the modes are exact, whatever the umask
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644} {
		p := filepath.Join(dir, "f"+perm.String())
		if err := WriteFile(p, []byte("one"), perm); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, p); got != perm {
			t.Errorf("mode %v, want %v", got, perm)
		}
		// Replacing keeps the mode asked for, not the old file's.
		os.Chmod(p, 0o666)
		if err := WriteFile(p, []byte("two"), perm); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "two" || mode(t, p) != perm {
			t.Errorf("%s = %q, mode %v", p, b, mode(t, p))
		}
	}
	if n := names(t, dir); len(n) != 2 {
		t.Errorf("folder holds %v", n)
	}
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keep.json")
	if err := WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, 0o600, func(w io.Writer) error {
		w.Write(make([]byte, 3<<20)) // past the buffer: the temporary file has data
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the old file became %q", b)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %v", n)
	}
}

func TestCommitAs(t *testing.T) {
	dir := t.TempDir()
	f, err := New(filepath.Join(dir, "upload"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Cleanup()
	f.WriteString("data")
	sub := filepath.Join(dir, "by-hash")
	os.Mkdir(sub, 0o700)
	if err := f.CommitAs(filepath.Join(sub, "x.csv")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "x.csv")); string(b) != "data" {
		t.Errorf("got %q", b)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second commit was accepted")
	}
	if n := names(t, dir); len(n) != 1 || n[0] != "by-hash" {
		t.Errorf("folder holds %v", n)
	}
}

func TestNewNeedsTheFolder(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "missing", "f"), 0o600); err == nil {
		t.Error("a file in a missing folder was started")
	}
}
