package core

import (
	"errors"
	"strings"
	"testing"

	"rehome/backend/browse"
)

// The reader's article, from the real ZIM through the real kiwix-serve,
// with no sandbox run: the Python docs' json page as safe HTML (its nine
// <script> tags, its stylesheets and images gone), its links to other
// pages of the library as zim:// addresses that open in turn, its web
// links absolute; web addresses, a missing article and a climb out of the
// library refused in words.
func TestBrowseReadArticle(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	withLibrary(t, c)
	r, err := c.Browse().Read(t.Context(), "zim://py/library/json.html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Title, "JSON encoder and decoder") || r.Source != "zim://py/library/json.html" || r.Library != "Python 3.11 docs (test)" {
		t.Fatalf("reading %q %q %q", r.Title, r.Source, r.Library)
	}
	for _, want := range []string{"JSONDecoder", `href="zim://py/library/stdtypes.html"`, `href="zim://py/glossary.html"`, `href="https://datatracker.ietf.org/doc/html/rfc7159.html"`} {
		if !strings.Contains(r.HTML, want) {
			t.Errorf("%q is missing from the reader's HTML", want)
		}
	}
	for _, bad := range []string{"<script", "src=", "_static", "<link", "<style", "onclick", "class=", "Table of Contents", "Quick search"} {
		if strings.Contains(r.HTML, bad) {
			t.Errorf("%q is in the reader's HTML", bad)
		}
	}
	if r, err := c.Browse().Read(t.Context(), "zim://py/library/csv.html"); err != nil || !strings.Contains(r.HTML, "csv.reader") {
		t.Fatalf("a link followed: %v %.200s", err, r.HTML)
	}
	if _, err := c.Browse().Read(t.Context(), "https://www.python.org/"); !errors.Is(err, browse.ErrRefused) || !strings.Contains(err.Error(), "opens in your browser") {
		t.Fatalf("a web address: %v", err)
	}
	if _, err := c.Browse().Read(t.Context(), "zim://py/library/nope.html"); !errors.Is(err, browse.ErrNotFound) {
		t.Fatalf("a missing article: %v", err)
	}
	if _, err := c.Browse().Read(t.Context(), "zim://py/../../etc/passwd"); !errors.Is(err, browse.ErrRefused) {
		t.Fatalf("out of the library: %v", err)
	}
}
