package browse

import (
	"bytes"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"rehome/internal/testsupport/zimtest"
)

// readerElements are the elements readerPolicy lets through.
var readerElements = strings.Fields(`h1 h2 h3 h4 h5 h6 p br hr div span section article header footer main aside
	blockquote pre code kbd samp var tt em strong b i u s sub sup small mark abbr cite q dfn del ins dl dt dd ul ol li
	table thead tbody tfoot tr th td caption colgroup col figure figcaption details summary time wbr ruby rt rp
	center big nav a`)

// FuzzReaderHTML feeds articles (a hostile ZIM's HTML, as kiwix-serve
// hands it over) to the reader: ReaderHTML, ReaderText, TitleOf, and each
// href through LinkTarget, seeded from the Python docs pages the library
// tests' ZIM is made of and TestReaderHTMLMain's page. Nothing may panic
// or take a second; what ReaderHTML gives, read again as HTML, holds only
// readerPolicy's elements and attributes (a link's href http(s) or a
// zim:// address of the same library), at most 6 bytes for each byte of
// the page and 1 KiB, and bluemonday gives it back unchanged (it is
// already safe); ReaderText is the text escaped (it unescapes back);
// a title is one clean line of at most 200 runes.
func FuzzReaderHTML(f *testing.F) {
	for _, p := range []string{"tutorial/interactive.html", "tutorial/appetite.html", "tutorial/whatnow.html"} {
		if b, err := os.ReadFile(filepath.Join(zimtest.DocsDir, p)); err == nil {
			f.Add(b, "../library/json.html#x")
		}
	}
	f.Add([]byte(`<html><body><div class="sphinxsidebar"><h3>Table of Contents</h3></div>
<div class="body" role="main"><h1>json</h1><div><p>inner</p></div><p>after the inner div</p></div><div class="footer">Copyright</div></body></html>`), "csv.html")
	f.Add([]byte(`<title>a<b>&amp;`+"\u202e"+`</b></title><script/>alert(1)</script><a href="javascript:x" onclick=y>z</a><img alt="d" src=x><td colspan=2 rowspan=x>c`), "//en.wikipedia.org/wiki/JSON")
	f.Fuzz(func(t *testing.T, page []byte, href string) {
		start := time.Now()
		got := ReaderHTML("py", "library/json.html", page)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("a %d-byte page took %s", len(page), d)
		}
		if len(got) > 6*len(page)+1024 {
			t.Fatalf("a %d-byte page gave %d bytes", len(page), len(got))
		}
		checkReaderHTML(t, got)
		if again := policy.Sanitize(got); again != strings.TrimSpace(again) || again != got {
			t.Fatalf("sanitised again it changed:\n%q\n%q", got, again)
		}
		text := ReaderText(page)
		inner, ok := strings.CutPrefix(text, "<pre>")
		inner, ok2 := strings.CutSuffix(inner, "</pre>")
		if !ok || !ok2 || html.UnescapeString(inner) != strings.ToValidUTF8(string(page), "\uFFFD") || len(text) > 5*len(page)+11 {
			t.Fatalf("text %q of %q", text, page)
		}
		title := TitleOf(page)
		if utf8.RuneCountInString(strings.TrimSuffix(title, "…")) > 200 || strings.ContainsAny(title, "\n\r\t\x1b\u202e") {
			t.Fatalf("title %q", title)
		}
		checkLinkTarget(t, href, LinkTarget("py", "library/json.html", href))
	})
}

// checkReaderHTML reads s as HTML: readerPolicy's elements and
// attributes only.
func checkReaderHTML(t *testing.T, s string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, e := range readerElements {
		allowed[e] = true
	}
	z := xhtml.NewTokenizer(bytes.NewReader([]byte(s)))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return
		case xhtml.CommentToken, xhtml.DoctypeToken:
			t.Fatalf("%q in %q", z.Raw(), s)
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			if !allowed[tok.Data] {
				t.Fatalf("<%s> in %q", tok.Data, s)
			}
			for _, a := range tok.Attr {
				checkReaderAttr(t, tok.Data, a, s)
			}
		}
	}
}

func checkReaderAttr(t *testing.T, el string, a xhtml.Attribute, s string) {
	t.Helper()
	switch a.Key {
	case "title", "lang":
		return
	case "dir":
		if a.Val == "ltr" || a.Val == "rtl" || a.Val == "auto" {
			return
		}
	case "colspan", "rowspan":
		if (el == "td" || el == "th") && a.Val != "" && strings.Trim(a.Val, "0123456789") == "" {
			return
		}
	case "href":
		u, err := url.Parse(a.Val)
		if el == "a" && err == nil && (u.Scheme == "http" || u.Scheme == "https" || strings.HasPrefix(a.Val, "zim://py/")) {
			return
		}
	}
	t.Fatalf("<%s %s=%q> in %q", el, a.Key, a.Val, s)
}

// checkLinkTarget: no link, an absolute http(s) address without a user,
// or an address in the same library that reads back without climbing.
func checkLinkTarget(t *testing.T, href, to string) {
	t.Helper()
	if to == "" {
		return
	}
	if book, path, ok := ParseZIMURL(to); ok {
		if book != "py" || strings.HasPrefix(path, "/") || ZIMURL(book, path) != to {
			t.Fatalf("%q leads to %q (%s, %q)", href, to, book, path)
		}
		return
	}
	u, err := url.Parse(to)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		t.Fatalf("%q leads to %q", href, to)
	}
}

// An article whose name holds two dots (Wikipedia's "...Baby_One_More_Time",
// a link to "..n" beside it, FuzzReaderHTML's input) opens: ParseZIMURL
// refused any path containing "..", so such a hit or link (the reader's
// own page opens it: browse.ts refuses only a ".." segment) was dead. A
// ".." segment, a climb out of the library, still is.
func TestZIMURLWithDotsInANameOpens(t *testing.T) {
	for _, p := range []string{"...Baby_One_More_Time", "A/Wait..._What%3F", "library/..n", "a..b/c"} {
		u := ZIMURL("wp", p)
		if book, path, ok := ParseZIMURL(u); !ok || book != "wp" || path != p {
			t.Errorf("%s: %s %q %v", u, book, path, ok)
		}
	}
	if to := LinkTarget("py", "library/json.html", "..n"); to != "zim://py/library/..n" {
		t.Errorf("..n leads to %q", to)
	}
	for _, u := range []string{"zim://py/../etc/passwd", "zim://py/a/../../b", "zim://py/a/..", "zim://py/%2e%2e/x", "zim://py/a%2F..%2Fb"} {
		if b, p, ok := ParseZIMURL(u); ok {
			t.Errorf("%s read as %s %q", u, b, p)
		}
	}
}
