package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rehome/backend/knowledge"
)

// hostileOld is 128000f's data folder with its library copies gone (only
// knowledge/blobs left, so the migration moves the blobs) and the first
// blob's hash returned.
func hostileOld(t *testing.T) (dir, sum string) {
	t.Helper()
	dir = t.TempDir()
	untarInto(t, "testdata/knowledge-128000f.tar.gz", dir)
	lib := filepath.Join(dir, KnowledgeDir)
	entries, _ := os.ReadDir(lib)
	for _, e := range entries {
		if len(e.Name()) == 64 {
			os.RemoveAll(filepath.Join(lib, e.Name()))
		}
	}
	blobs, err := os.ReadDir(filepath.Join(lib, "blobs"))
	if err != nil || len(blobs) == 0 {
		t.Fatalf("the fixture has no blobs: %v", err)
	}
	return dir, blobs[0].Name()
}

// TestRedTeamMigrateBlobSymlink: an old data folder (one copied from
// elsewhere, a restored backup) whose blobs/<sha256> is a symbolic link
// to a file of the user's. The migration moved the link into the library
// and chmod-ed through it: the user's file became 0600 and the library
// entry named it. Now a blob that is not a regular file is not moved:
// the host file keeps its mode and bytes, and the knowledge lists no path
// that reads it.
func TestRedTeamMigrateBlobSymlink(t *testing.T) {
	dir, sum := hostileOld(t)
	victim := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(victim, []byte("ssh-ed25519 AAAA the user's key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(victim, 0o644)
	blob := filepath.Join(dir, KnowledgeDir, "blobs", sum)
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, blob); err != nil {
		t.Fatal(err)
	}
	c := openCore(t, dir, Options{})
	defer c.Close()
	k := c.Knowledge()
	for _, id := range []string{"33pjh38v5f5249mp0b8c7ej5mg", "33pjh38xthj6kv8a6gcmwq62zc"} {
		files, err := k.List(id)
		if err != nil {
			t.Fatalf("list %s: %v", id, err)
		}
		for _, f := range files {
			if f.Path == "" {
				continue
			}
			if st, err := os.Lstat(f.Path); err == nil && st.Mode()&os.ModeSymlink != 0 {
				t.Errorf("%s: %s is a link into the host (%s)", f.Name, f.Path, st.Mode())
			}
		}
	}
	st, err := os.Stat(victim)
	if err != nil {
		t.Fatalf("the host file is gone: %v", err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("the migration changed the host file's mode to %v through the link", st.Mode().Perm())
	}
	if data, _ := os.ReadFile(victim); string(data) != "ssh-ed25519 AAAA the user's key\n" {
		t.Errorf("the host file changed: %q", data)
	}
}

// TestRedTeamMigrateLibraryDirSymlink: an old data folder whose
// knowledge/<sha256> is a symbolic link to a folder of the user's (here
// ~/.ssh's stand-in). The migration made the folder "exist" through the
// link and renamed the blob into it: a file of the user's named like the
// knowledge file (authorized_keys) was overwritten by the blob's bytes.
// Now the library folder must be a real folder of the library: nothing
// lands in the user's folder.
func TestRedTeamMigrateLibraryDirSymlink(t *testing.T) {
	for _, withFile := range []bool{false, true} {
		dir, sum := hostileOld(t)
		home := t.TempDir()
		os.Mkdir(filepath.Join(home, ".cache"), 0o700)
		keep := filepath.Join(home, "id_ed25519")
		if withFile {
			if err := os.WriteFile(keep, []byte("the user's secret"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(home, filepath.Join(dir, KnowledgeDir, sum)); err != nil {
			t.Fatal(err)
		}
		c := openCore(t, dir, Options{})
		k := c.Knowledge()
		for _, id := range []string{"33pjh38v5f5249mp0b8c7ej5mg", "33pjh38xthj6kv8a6gcmwq62zc"} {
			files, _ := k.List(id) // an error is fine; a write into home or a path into it is not
			for _, f := range files {
				if f.Path == "" {
					continue
				}
				if real, err := filepath.EvalSymlinks(f.Path); err == nil && filepath.Dir(real) != filepath.Dir(f.Path) {
					t.Errorf("with a file there %v: %s names %s, which is %s", withFile, f.Name, f.Path, real)
				}
			}
		}
		c.Close()
		entries, _ := os.ReadDir(home)
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		want := 1
		if withFile {
			want = 2
		}
		if len(entries) != want {
			t.Errorf("with a file there %v: the migration wrote into the folder the link names: %v", withFile, names)
		}
		if data, _ := os.ReadFile(keep); withFile && string(data) != "the user's secret" {
			t.Errorf("the user's file changed: %q", data)
		}
	}
}

// TestRedTeamKnowledgeLookAlikeNames: files dropped or imported under
// names made to pass for another in citations — "guide.md" with a
// zero-width space, a right-to-left override that shows
// "report\u202efdp.md" as "reportdm.pdf", a newline that breaks the
// cited line, "café" decomposed beside "café" composed — were listed,
// searched and cited under those names as given. Now every listed name
// is NFC with control and format characters as "_", other spaces plain
// and none at either end: each looks like what it is, the two cafés are
// café.md and café (2).md, and the spaced guides guide (2).md and
// guide (2) (2).md.
func TestRedTeamKnowledgeLookAlikeNames(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	defer c.Close()
	a, err := c.Assistants().Create(assistantNamed("Kettle Helper"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, name := range []string{"guide.md", "guide\u200b.md", "report\u202efdp.md", "a\nb.md", "cafe\u0301.md", "caf\u00e9.md", "x\u2066y\u2069.md", "guide.md ", "guide\u00a0(2).md"} {
		sub := filepath.Join(src, fmt.Sprint(i))
		os.Mkdir(sub, 0o700)
		paths = append(paths, writeFile(t, filepath.Join(sub, name), fmt.Sprintf("%s\n\nThe warranty lasts %d years.\n", kettleGuide, i+2)))
	}
	res, err := c.Knowledge().Add(context.Background(), a.ID, paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"guide.md", "guide_.md", "report_fdp.md", "a_b.md", "caf\u00e9.md", "caf\u00e9 (2).md", "x_y_.md", "guide (2).md", "guide (2) (2).md"}
	for i, r := range res {
		if r.State != knowledge.StateIndexed || r.Name != want[i] {
			t.Errorf("%q: listed as %q (%s), want %q", filepath.Base(paths[i]), r.Name, r.State, want[i])
		}
		if r.Path != "" && filepath.Base(r.Path) != want[i] {
			t.Errorf("%q: the library's copy is %q", want[i], filepath.Base(r.Path))
		}
	}
	hits, err := c.Knowledge().Search(context.Background(), a.ID, "warranty", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		for _, r := range h.File {
			if r == '\n' || r == '\u200b' || r == '\u202e' || r == '\u2066' {
				t.Errorf("a citation names %q", h.File)
			}
		}
	}
}

// TestRedTeamMigrateBlobsFolderLink: an old data folder whose
// knowledge/blobs is a link to a folder of the user's, holding a file
// named like a blob. The fold moved that file out of the user's folder
// into the library; now a blobs/ that is not a real folder is removed as
// the link it is, and nothing is moved out through it.
func TestRedTeamMigrateBlobsFolderLink(t *testing.T) {
	dir, sum := hostileOld(t)
	blobs := filepath.Join(dir, KnowledgeDir, "blobs")
	home := t.TempDir()
	if err := os.Rename(filepath.Join(blobs, sum), filepath.Join(home, sum)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "thesis.tex"), []byte("the user's thesis"), 0o600)
	if err := os.RemoveAll(blobs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, blobs); err != nil {
		t.Fatal(err)
	}
	c := openCore(t, dir, Options{})
	defer c.Close()
	c.Knowledge().List("33pjh38v5f5249mp0b8c7ej5mg")
	if data, err := os.ReadFile(filepath.Join(home, "thesis.tex")); string(data) != "the user's thesis" {
		t.Errorf("the user's file in the folder blobs/ links to: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(home, sum)); err != nil {
		t.Errorf("the user's file named like a blob was moved out of their folder: %v", err)
	}
	if _, err := os.Lstat(blobs); !os.IsNotExist(err) {
		t.Errorf("the blobs link is still there: %v", err)
	}
}
