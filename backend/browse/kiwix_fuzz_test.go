package browse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"rehome/internal/testsupport/zimtest"
)

// fuzzBook is the library name the fuzzed search answers are asked of.
const fuzzBook = "python311-test"

// kiwixSeeds are the real kiwix-serve's answers for the library tests'
// ZIM (its catalog, a full-text search, an unknown book's 400), asked of
// it here, and the shapes docs/browsing.md's table gives when kiwix-serve
// or zim-tools are missing.
func kiwixSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte(`<feed><entry><title>T</title><name>n</name><tags>_ftindex:yes</tags><articleCount>3</articleCount><link type="text/html" href="/` + fuzzBook + `"/></entry></feed>`),
		[]byte(`<rss><channel><totalResults>1</totalResults><item><title> json </title><link>/` + fuzzBook + `/library/json.html</link><description>the <b>json</b> &amp;lt;module&amp;gt;</description><book><title>T</title></book><wordCount>1,234</wordCount></item></channel></rss>`),
	}
	_, errW := exec.LookPath("zimwriterfs")
	bin, errK := exec.LookPath("kiwix-serve")
	if _, err := os.Stat(filepath.Join(zimtest.DocsDir, "library", "json.html")); err != nil || errW != nil || errK != nil {
		return seeds
	}
	pages := append(zimtest.Pages(f, "library/j", 0), zimtest.Pages(f, "library/cs", 0)...)
	pages = append(pages, zimtest.Pages(f, "tutorial/", 0)...)
	zim := zimtest.Build(f, "python311-test", "Python 3.11 docs (test)", pages, false)
	k, err := StartKiwix(context.Background(), bin, filepath.Join(f.TempDir(), "served"), map[string]string{fuzzBook: zim}, "")
	if err != nil {
		f.Fatal(err)
	}
	defer k.Stop()
	for _, q := range []string{"/catalog/v2/entries?count=-1", "/search?content=" + fuzzBook + "&pattern=json+decoder&format=xml&pageLength=5",
		"/search?content=nobook&pattern=json&format=xml&pageLength=5"} {
		resp, err := http.Get(k.URL + q)
		if err != nil {
			f.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzKiwixAnswers feeds kiwix-serve's answers (its OPDS catalog, its RSS
// search answer, an error page: what a hostile ZIM's metadata and
// articles become) to Kiwix.Catalog and Kiwix.Search through a local
// HTTP server, seeded from the real kiwix-serve's answers for the
// library tests' ZIM. Nothing may panic; an answer that does not read is
// ErrNoKiwix; the books and hits say no more than the answer's bytes, at
// most top hits, each of the book asked, its title, snippet and source
// one clean line (as the web's hits), its zim:// address its path's
// (ParseZIMURL gives the path back, or refuses one that climbs out).
func FuzzKiwixAnswers(f *testing.F) {
	for _, s := range kiwixSeeds(f) {
		f.Add(s, uint8(5), false)
	}
	f.Add([]byte("<html><body><h1>No such book</h1><p>nobook</p></body></html>"), uint8(5), true)
	var body atomic.Pointer[[]byte]
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusBadRequest)
		}
		w.Write(*body.Load())
	}))
	f.Cleanup(srv.Close)
	k := &Kiwix{URL: srv.URL}
	f.Fuzz(func(t *testing.T, data []byte, top uint8, fail bool) {
		body.Store(&data)
		failing.Store(fail)
		books, err := k.Catalog(context.Background())
		if kiwixRefused(t, err, data, fail) {
			n := 0
			for _, b := range books {
				n += len(b.URLName) + len(b.Name) + len(b.Title) + len(b.Description) + len(b.Language)
				if b.URLName != strings.Trim(b.URLName, "/") {
					t.Fatalf("a book's URL name %q", b.URLName)
				}
			}
			if n > len(data) || len(books) > len(data)/len("<entry/>") {
				t.Fatalf("a %d-byte catalog gave %d books of %d bytes", len(data), len(books), n)
			}
		}
		want := int(top%16) + 1
		hits, err := k.Search(context.Background(), fuzzBook, "json", want)
		if kiwixRefused(t, err, data, fail) {
			checkKiwixHits(t, hits, data, want)
		}
	})
}

// kiwixRefused says whether err is nil; an error must be ErrNoKiwix, and
// fail's (a 400's) must say the status, within the answer's size.
func kiwixRefused(t *testing.T, err error, data []byte, fail bool) bool {
	t.Helper()
	switch {
	case err == nil && fail:
		t.Fatal("a 400 answer was read")
	case err == nil:
		return true
	case !errors.Is(err, ErrNoKiwix):
		t.Fatalf("refused with an error that is not ErrNoKiwix: %v", err)
	case fail && (!strings.Contains(err.Error(), "400") || len(err.Error()) > len(data)+200):
		t.Fatalf("a %d-byte 400 answer said as %d bytes: %.200q", len(data), len(err.Error()), err)
	}
	return false
}

func checkKiwixHits(t *testing.T, hits []Hit, data []byte, top int) {
	t.Helper()
	if len(hits) > top {
		t.Fatalf("%d hits, asked for %d", len(hits), top)
	}
	for _, h := range hits {
		if h.Book != fuzzBook || h.URL != ZIMURL(fuzzBook, h.Path) {
			t.Fatalf("hit %+v", h)
		}
		oneCleanLine(t, "a title", h.Title, 300)
		oneCleanLine(t, "a snippet", h.Snippet, 600)
		oneCleanLine(t, "a source", h.Source, 300)
		if len(h.Title)+len(h.Snippet)+len(h.Path)+len(h.Source) > len(data) {
			t.Fatalf("a %d-byte answer gave a hit of more: %+v", len(data), h)
		}
		book, path, ok := ParseZIMURL(h.URL)
		switch {
		case ok && (book != fuzzBook || path != h.Path):
			t.Fatalf("%s reads back as %s, %q; the hit's path is %q", h.URL, book, path, h.Path)
		case !ok && h.Path != "" && !slices.Contains(strings.Split(h.Path, "/"), ".."):
			t.Fatalf("%s (path %q) does not read back", h.URL, h.Path)
		}
		if u, err := url.Parse(h.URL); err != nil || u.Scheme != "zim" {
			t.Fatalf("%q is no zim:// address: %v", h.URL, err)
		}
	}
}
