package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An upload is kept under its content's hash, once; what is too large,
// cut short or not a file name is refused in words, and a data folder
// that cannot take it says so as the machine's fault (ErrUploadStore).
func TestKeepUpload(t *testing.T) {
	dir := t.TempDir()
	c := New(dir, Options{})
	up, err := c.KeepUpload("shot.png", strings.NewReader("PNG bytes"), 9, 100)
	if err != nil {
		t.Fatal(err)
	}
	if up.Again || up.Size != 9 || filepath.Base(up.Path) != "shot.png" || !strings.HasPrefix(up.Path, filepath.Join(dir, UploadsDir)+string(filepath.Separator)) {
		t.Fatalf("kept as %+v", up)
	}
	if b, err := os.ReadFile(up.Path); err != nil || string(b) != "PNG bytes" {
		t.Fatalf("the kept file holds %q (%v)", b, err)
	}
	if st, _ := os.Stat(up.Path); st.Mode().Perm() != 0o644 {
		t.Fatalf("the kept file's mode is %v, want 0644 (the sandbox's user reads it)", st.Mode().Perm())
	}
	again, err := c.KeepUpload("shot.png", strings.NewReader("PNG bytes"), -1, 100)
	if err != nil || !again.Again || again.Path != up.Path {
		t.Fatalf("the same file again: %+v, %v (want the first copy)", again, err)
	}
	for _, bad := range []struct {
		name, body string
		size       int64
		want       string
	}{
		{"big.csv", strings.Repeat("x", 101), -1, "larger than"},
		{"cut.csv", "half", 8, "cut short"},
		{"../db", "x", 1, "not a file name"},
		{"", "x", 1, "not a file name"},
	} {
		_, err := c.KeepUpload(bad.name, strings.NewReader(bad.body), bad.size, 100)
		if err == nil || !strings.Contains(err.Error(), bad.want) || errors.Is(err, ErrUploadStore) {
			t.Errorf("KeepUpload(%q) = %v, want an error about %q", bad.name, err, bad.want)
		}
	}
	// A data folder whose uploads folder cannot be made.
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, UploadsDir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(full, Options{}).KeepUpload("a.csv", strings.NewReader("x"), 1, 100); !errors.Is(err, ErrUploadStore) {
		t.Fatalf("uploads folder not makeable: %v, want ErrUploadStore", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, UploadsDir))
	for _, e := range ents {
		if !e.IsDir() {
			t.Errorf("a refused upload left %s behind", e.Name())
		}
	}
}
