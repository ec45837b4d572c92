package browse

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/store"
	"rehome/internal/testsupport/zimtest"
)

// testPages are the documentation pages the small test ZIM holds: the
// json module's page and its neighbours in the library reference.
func testZIM(t *testing.T) string {
	t.Helper()
	zimtest.Need(t)
	pages := append(zimtest.Pages(t, "library/j", 0), zimtest.Pages(t, "library/cs", 0)...)
	pages = append(pages, zimtest.Pages(t, "tutorial/", 0)...)
	return zimtest.Build(t, "python311-test", "Python 3.11 docs (test)", pages, false)
}

func newService(t *testing.T) *Service { return newServiceTB(t, t.TempDir()) }

func newServiceTB(t testing.TB, dir string) *Service {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := NewService(st, dir, filepath.Join(dir, "logs"))
	t.Cleanup(s.Close)
	return s
}

// copyFile copies src to a new file in dir named name.
func copyFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A real ZIM (zimwriterfs from the Python docs) is checked and added;
// files that are not whole ZIMs are refused in words: a zip named .zim,
// a web page, one cut short, one with a byte flipped (the MD5 at its end
// no longer matches).
func TestLibraryAddChecksZIM(t *testing.T) {
	zim := testZIM(t)
	h, size, sum, err := Verify(t.Context(), zim, nil)
	if err != nil || h.Major < 5 || h.Entries == 0 || uint64(size) != h.ChecksumPos+16 || len(sum) != 32 {
		t.Fatalf("verify the real ZIM: %+v %d %q %v", h, size, sum, err)
	}
	dir := t.TempDir()
	good, _ := os.ReadFile(zim)
	cases := []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"empty.zim", nil, ErrNotZIM, "shorter than a ZIM header"},
		{"archive.zim", append([]byte("PK\x03\x04"), make([]byte, 200)...), ErrNotZIM, "zip archive"},
		{"page.zim", []byte("<!DOCTYPE html><html>" + strings.Repeat(" ", 200)), ErrNotZIM, "error page"},
		{"cut.zim", good[:len(good)/2], ErrZIMCut, "copy it again"},
		{"flipped.zim", flip(good, len(good)/3), ErrZIMChecksum, "damaged"},
	}
	s := newService(t)
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.data, 0o644)
		_, err := s.Add(t.Context(), p, AddOptions{})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	if libs, _ := s.List(); len(libs) != 0 {
		t.Fatalf("refused files were registered: %+v", libs)
	}
}

func flip(b []byte, at int) []byte {
	c := append([]byte{}, b...)
	c[at] ^= 0xff
	return c
}

// Added (referenced, then copied), listed with what the ZIM's metadata
// says, searched through the real kiwix-serve's full-text index, an
// article opened by its zim:// address, removed (rehome's copy deleted,
// the user's file kept).
func TestLibraryAddSearchOpenRemove(t *testing.T) {
	zim := testZIM(t)
	s := newService(t)
	user := copyFile(t, zim, t.TempDir(), "Python Docs.zim")
	var steps []string
	lib, err := s.Add(t.Context(), user, AddOptions{Progress: func(step string, _, _ int64) { steps = append(steps, step) }})
	if err != nil {
		t.Fatal(err)
	}
	if lib.Name != "python-docs" || lib.Title != "Python 3.11 docs (test)" || lib.ZIMName != "python311-test" || lib.Articles < 20 || !lib.FullText || lib.Copied || lib.Path != user {
		t.Fatalf("added %+v", lib)
	}
	if len(steps) == 0 || steps[0] != "checking" {
		t.Fatalf("progress %v", steps)
	}
	if _, err := s.Add(t.Context(), user, AddOptions{Name: "again"}); !errors.Is(err, ErrExists) {
		t.Fatalf("the same file again: %v", err)
	}
	res, err := s.Search(t.Context(), "json decoder", SearchOptions{Top: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %+v %v", res, err)
	}
	top := res.Hits[0]
	if top.URL != "zim://python-docs/library/json.html" || !strings.Contains(top.Title, "JSON encoder and decoder") || !strings.Contains(strings.ToLower(top.Snippet), "json") || strings.Contains(top.Snippet, "<b>") {
		t.Fatalf("top hit %+v", top)
	}
	op, err := s.Open(t.Context(), top.URL, OpenOptions{})
	if err != nil || op.ContentType != "text/html" || !strings.Contains(op.Title, "JSON encoder and decoder") || !strings.Contains(string(op.Body), "JSONDecoder") || op.Source != top.URL {
		t.Fatalf("open: %q %q %d bytes %v", op.ContentType, op.Title, len(op.Body), err)
	}
	if _, err := s.Open(t.Context(), "zim://python-docs/library/nothing-here.html", OpenOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing article: %v", err)
	}
	if k := s.Kiwix.Running(); k == nil || !strings.HasPrefix(k.URL, "http://127.0.0.1:") {
		t.Fatalf("kiwix-serve is not running on loopback: %+v", k)
	}
	if _, err := s.Remove("python-docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(user); err != nil {
		t.Fatalf("the user's own file went: %v", err)
	}
	copied, err := s.Add(t.Context(), user, AddOptions{Copy: true, Name: "py"})
	if err != nil || !copied.Copied || filepath.Dir(copied.Path) != s.dir || copied.Path == user {
		t.Fatalf("copied %+v %v", copied, err)
	}
	if fi, _ := os.Stat(copied.Path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("rehome's copy is %v", fi.Mode())
	}
	os.Remove(user) // the USB stick goes: the copy keeps serving
	if res, err := s.Search(t.Context(), "csv reader", SearchOptions{}); err != nil || len(res.Hits) == 0 || res.Hits[0].Book != "py" {
		t.Fatalf("search the copy: %+v %v", res, err)
	}
	if _, err := s.Remove("py"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copied.Path); !os.IsNotExist(err) {
		t.Fatalf("rehome's copy is still there: %v", err)
	}
	if _, err := s.Search(t.Context(), "json", SearchOptions{}); !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("no library: %v", err)
	}
}

// A referenced file that moved is said, with what to do; kiwix-serve
// stops after the idle time and starts again on the next search.
func TestLibraryMovedAndIdle(t *testing.T) {
	zim := testZIM(t)
	s := newService(t)
	s.Kiwix.Idle = 300 * time.Millisecond
	user := copyFile(t, zim, t.TempDir(), "py.zim")
	if _, err := s.Add(t.Context(), user, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(t.Context(), "json", SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	k := s.Kiwix.Running()
	if k == nil {
		t.Fatal("kiwix-serve is not running after a search")
	}
	select {
	case <-k.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("kiwix-serve was not stopped after the idle time")
	}
	if s.Kiwix.Running() != nil {
		t.Fatal("a stopped kiwix-serve is still listed")
	}
	if _, err := s.Search(context.Background(), "json", SearchOptions{}); err != nil || s.Kiwix.Running() == nil {
		t.Fatalf("the next search did not start it again: %v", err)
	}
	s.Close()
	os.Rename(user, user+".moved")
	_, err := s.Search(t.Context(), "json", SearchOptions{})
	if !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("search with the file moved: %v", err)
	}
	if _, err := s.Open(t.Context(), "zim://py/library/json.html", OpenOptions{}); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "carry it again") {
		t.Fatalf("open with the file moved: %v", err)
	}
}
