package logs

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenChildTruncatesItsFileAndHidesATemporaryOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte("an older run's lines"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenChild(path, "unused-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("the log was not truncated: %d bytes", fi.Size())
	}
	if _, err := f.WriteString("started"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(f); string(b) != "started" {
		t.Errorf("read back %q, want what was written", b)
	}

	tmp, err := OpenChild("", "rehome-test-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if _, err := os.Stat(tmp.Name()); !os.IsNotExist(err) {
		t.Errorf("the temporary log %s is still in its folder (err %v): it should be unlinked", tmp.Name(), err)
	}
}
