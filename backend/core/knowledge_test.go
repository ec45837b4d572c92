package core

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/knowledge"
)

const kettleGuide = `# Kettle care

Keep the kettle dry.

## Descaling

Descale the kettle every four weeks with citric acid; hard water needs it every two weeks.

## Warranty

The warranty lasts two years from the date of purchase. Batteries are covered for six months.
`

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copies lists the files under the data folder's knowledge folder that
// are not an index: rehome's copies of knowledge bytes.
func copies(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, KnowledgeDir)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == "assistants" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestKnowledgeOneCopyPerFile: a file given to two assistants is one copy
// in the library — the one the record names (what is mounted and
// bundled) and the one the index read; no second copy in blobs/. It
// goes when the last assistant that has it lets it go.
func TestKnowledgeOneCopyPerFile(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	guide := writeFile(t, filepath.Join(src, "guide.md"), kettleGuide)
	k := c.Knowledge()
	var ids []string
	for _, name := range []string{"Kettle Helper", "Toaster Helper"} {
		a, err := c.Assistants().Create(assistantNamed(name))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
		if res, err := k.Add(context.Background(), a.ID, []string{guide}, nil); err != nil || res[0].State != knowledge.StateIndexed {
			t.Fatalf("add: %+v %v", res, err)
		}
	}
	got := copies(t, dir)
	if len(got) != 1 || strings.HasPrefix(got[0], "blobs") {
		t.Fatalf("copies of one file given to two assistants: %v (want one, in the library)", got)
	}
	files, _ := k.List(ids[0])
	rec, _ := c.Assistants().Get(ids[0])
	if len(rec.Knowledge) != 1 || rec.Knowledge[0].Path != files[0].Path || files[0].Path != filepath.Join(dir, KnowledgeDir, got[0]) {
		t.Fatalf("record %+v, index %+v, copy %v: not the same one copy", rec.Knowledge, files, got)
	}
	if !c.Assistants().Library().Owns(rec.Knowledge[0]) {
		t.Fatalf("the record's copy is not the library's own: %+v", rec.Knowledge[0])
	}
	// A changed file: its new bytes replace the old copy, once.
	writeFile(t, guide, strings.Replace(kettleGuide, "two years", "three years", 1))
	if res, err := k.Add(context.Background(), ids[0], []string{guide}, nil); err != nil || res[0].Action != "reindexed" {
		t.Fatalf("changed: %+v %v", res, err)
	}
	if got := copies(t, dir); len(got) != 2 { // the old bytes: still the second assistant's
		t.Fatalf("after a change: %v", got)
	}
	if _, err := k.Remove(ids[1], "guide.md"); err != nil {
		t.Fatal(err)
	}
	if got := copies(t, dir); len(got) != 1 || !strings.Contains(got[0], sha256hex(t, guide)) {
		t.Fatalf("after the second let the old bytes go: %v", got)
	}
	if _, err := k.Remove(ids[0], "guide.md"); err != nil {
		t.Fatal(err)
	}
	if got := copies(t, dir); len(got) != 0 {
		t.Fatalf("no assistant has the file, its copy stays: %v", got)
	}
}

// TestKnowledgeSameNames: two guide.md from two folders are two files,
// listed apart, both searched and cited by their own name, removed one
// at a time (by the name as listed or a sha256 prefix); a loose name
// that fits both says which.
func TestKnowledgeSameNames(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	a, err := c.Assistants().Create(assistantNamed("Kettle Helper"))
	if err != nil {
		t.Fatal(err)
	}
	k := c.Knowledge()
	one := writeFile(t, filepath.Join(src, "kettle", "guide.md"), kettleGuide)
	two := writeFile(t, filepath.Join(src, "toaster", "guide.md"), "# Toaster care\n\nEmpty the crumb tray every week; the toaster warranty lasts one year.\n")
	res, err := k.Add(context.Background(), a.ID, []string{one, two}, nil)
	if err != nil || len(res) != 2 || res[0].Name != "guide.md" || res[1].Name != "guide (2).md" || res[1].Original != "guide.md" ||
		!strings.Contains(res[1].Message, "as guide (2).md") {
		t.Fatalf("add: %+v %v", res, err)
	}
	files, _ := k.List(a.ID)
	rec, _ := c.Assistants().Get(a.ID)
	if len(files) != 2 || len(rec.Knowledge) != 2 || rec.Knowledge[0].Name == rec.Knowledge[1].Name {
		t.Fatalf("list %+v, record %+v", files, rec.Knowledge)
	}
	hits, err := k.Search(context.Background(), a.ID, "warranty", "", 5)
	byFile := map[string]bool{}
	for _, h := range hits {
		byFile[h.File] = true
	}
	if err != nil || !byFile["guide.md"] || !byFile["guide (2).md"] {
		t.Fatalf("search: both files' passages, by their own names: %+v %v", hits, err)
	}
	if hits, err := k.Search(context.Background(), a.ID, "warranty", "guide (2).md", 5); err != nil || len(hits) != 1 || !strings.Contains(hits[0].Text, "one year") {
		t.Fatalf("search in guide (2).md: %+v %v", hits, err)
	}
	// Each source again: unchanged, nothing replaced.
	if res, err := k.Add(context.Background(), a.ID, []string{two, one}, nil); err != nil || res[0].Action != "unchanged" || res[1].Action != "unchanged" || res[0].Name != "guide (2).md" {
		t.Fatalf("again: %+v %v", res, err)
	}
	// The first one changes: it re-indexes under its own name.
	writeFile(t, one, strings.Replace(kettleGuide, "two years", "three years", 1))
	if res, err := k.Add(context.Background(), a.ID, []string{one}, nil); err != nil || res[0].Action != "reindexed" || res[0].Name != "guide.md" {
		t.Fatalf("changed: %+v %v", res, err)
	}
	// A loose name fits both: it says which, and nothing goes.
	_, err = k.Remove(a.ID, "GUIDE")
	if !errors.Is(err, knowledge.ErrAmbiguous) || !strings.Contains(err.Error(), "guide.md (sha256 ") || !strings.Contains(err.Error(), "guide (2).md (sha256 ") ||
		!strings.Contains(err.Error(), filepath.Join(src, "toaster")) {
		t.Fatalf("ambiguous rm: %v", err)
	}
	if files, _ := k.List(a.ID); len(files) != 2 {
		t.Fatalf("an ambiguous rm removed something: %+v", files)
	}
	// By a sha256 prefix: that one only.
	files, _ = k.List(a.ID)
	second := files[0]
	if second.Name != "guide (2).md" {
		second = files[1]
	}
	if f, err := k.Remove(a.ID, second.SHA256[:8]); err != nil || f.Name != "guide (2).md" {
		t.Fatalf("rm by sha prefix: %+v %v", f, err)
	}
	hits, _ = k.Search(context.Background(), a.ID, "warranty", "", 5)
	if len(hits) == 0 || hits[0].File != "guide.md" || strings.Contains(hits[0].Text, "one year") {
		t.Fatalf("after rm: %+v", hits)
	}
	rec, _ = c.Assistants().Get(a.ID)
	if len(rec.Knowledge) != 1 || rec.Knowledge[0].Name != "guide.md" || !strings.Contains(rec.Knowledge[0].SHA256, sha256hex(t, one)) {
		t.Fatalf("record after rm: %+v", rec.Knowledge)
	}
	if f, err := k.Remove(a.ID, "guide.md"); err != nil || f.Name != "guide.md" {
		t.Fatalf("rm by name: %+v %v", f, err)
	}
	if got := copies(t, dir); len(got) != 0 {
		t.Fatalf("copies left: %v", got)
	}
}

// TestKnowledgeMigrates128000f: a data folder made by 128000f's rehome
// (testdata/knowledge-128000f.tar.gz: two assistants, guide.md in both,
// notes.txt and a failed setup.exe in one, every file copied twice —
// into the library and into knowledge/blobs) opens: each file names the
// library's copy, blobs/ is gone, and every file still lists, searches
// and re-adds as unchanged. Its variant with the library copies gone
// (only the blobs left) folds the blobs into the library: nothing lost.
func TestKnowledgeMigrates128000f(t *testing.T) {
	const kettle, toaster = "33pjh38v5f5249mp0b8c7ej5mg", "33pjh38xthj6kv8a6gcmwq62zc"
	for _, libGone := range []bool{false, true} {
		dir := t.TempDir()
		untarInto(t, "testdata/knowledge-128000f.tar.gz", dir)
		if _, err := os.Stat(filepath.Join(dir, KnowledgeDir, "blobs")); err != nil {
			t.Fatal("the fixture has no blobs")
		}
		if libGone {
			entries, _ := os.ReadDir(filepath.Join(dir, KnowledgeDir))
			for _, e := range entries {
				if len(e.Name()) == 64 {
					os.RemoveAll(filepath.Join(dir, KnowledgeDir, e.Name()))
				}
			}
		}
		c := openCore(t, dir, Options{})
		k := c.Knowledge()
		files, err := k.List(kettle)
		if err != nil || len(files) != 3 {
			t.Fatalf("list: %+v %v", files, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f.Path)
			if err != nil || filepath.Dir(filepath.Dir(f.Path)) != filepath.Join(dir, KnowledgeDir) || filepath.Base(filepath.Dir(f.Path)) != f.SHA256 ||
				sha256Of(data) != f.SHA256 || f.Source != "" {
				t.Fatalf("lib gone %v: %s: path %s source %q: %v", libGone, f.Name, f.Path, f.Source, err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, KnowledgeDir, "blobs")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("blobs/ is still there: %v", err)
		}
		if got := copies(t, dir); len(got) != 3 {
			t.Fatalf("copies after the move: %v", got)
		}
		for _, id := range []string{kettle, toaster} {
			hits, err := k.Search(context.Background(), id, "how long is the warranty", "", 3)
			if err != nil || len(hits) == 0 || hits[0].File != "guide.md" || !strings.Contains(hits[0].Text, "two years") {
				t.Fatalf("search %s: %+v %v", id, hits, err)
			}
		}
		// Re-adding the file from where it came (a new path: 128000f kept
		// none) is the same file, unchanged.
		guide := writeFile(t, filepath.Join(t.TempDir(), "guide.md"), kettleGuide)
		if res, err := k.Add(context.Background(), kettle, []string{guide}, nil); err != nil || res[0].Action != "unchanged" || res[0].Name != "guide.md" {
			t.Fatalf("re-add: %+v %v", res, err)
		}
		if files, _ := k.List(kettle); len(files) != 3 {
			t.Fatalf("re-add made a second entry: %+v", files)
		}
		// guide.md is the other assistant's too: removing it from one
		// keeps the copy.
		if _, err := k.Remove(kettle, "guide.md"); err != nil {
			t.Fatal(err)
		}
		if hits, err := k.Search(context.Background(), toaster, "warranty", "", 3); err != nil || len(hits) == 0 {
			t.Fatalf("the other assistant lost its file: %+v %v", hits, err)
		}
		c.Close()
	}
}

func untarInto(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(p, 0o700)
		case tar.TypeReg:
			var b bytes.Buffer
			io.Copy(&b, tr)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, b.Bytes(), os.FileMode(h.Mode)&0o777|0o200); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func sha256hex(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256Of(data)
}

func sha256Of(data []byte) string { return fmt.Sprintf("%x", sha256.Sum256(data)) }

func assistantNamed(name string) assistant.Assistant {
	return assistant.Assistant{Name: name, Instructions: "Answer from the files."}
}
