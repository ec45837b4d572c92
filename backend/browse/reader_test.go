package browse

import (
	"strings"
	"testing"
)

// Where each kind of link of an article leads in the reader.
func TestLinkTarget(t *testing.T) {
	for _, c := range []struct{ href, want string }{
		{"csv.html", "zim://py/library/csv.html"},
		{"stdtypes.html#str", "zim://py/library/stdtypes.html"},
		{"../glossary.html#keyword-only-parameter", "zim://py/glossary.html"},
		{"./pathlib.html?x=1", "zim://py/library/pathlib.html"},
		{"/tutorial/index.html", "zim://py/tutorial/index.html"},
		{"Caf%C3%A9 au lait.html", "zim://py/library/Caf%C3%A9%20au%20lait.html"},
		{"../../etc/passwd", ""},
		{"../../../x.html", ""},
		{"#json.dumps", ""},
		{"", ""},
		{"https://www.python.org/", "https://www.python.org/"},
		{"//en.wikipedia.org/wiki/JSON", "https://en.wikipedia.org/wiki/JSON"},
		{"http://user:pw@example.org/", ""},
		{"javascript:alert(1)", ""},
		{" JaVaScRiPt:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"file:///etc/passwd", ""},
		{"mailto:a@b", ""},
		{"%zz", ""},
		{"zim://other/x.html", ""},
	} {
		if got := LinkTarget("py", "library/json.html", c.href); got != c.want {
			t.Errorf("%q: %q, want %q", c.href, got, c.want)
		}
	}
}

// A hostile article: nothing runs, nothing loads, no attribute but a
// link's href (and title, lang, dir, spans) survives, the text stays.
func TestReaderHTMLHostile(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>T</title><link rel="stylesheet" href="http://127.0.0.1:9/x.css">
<script>window.ran = 1</script><style>body{background:url(http://127.0.0.1:9/bg)}</style><base href="http://127.0.0.1:9/"></head>
<body onload="alert(1)"><h1 id="app" class="overlay" style="position:fixed">Title</h1>
<p>Read <a href="csv.html" onclick="steal()">csv</a>, <a href="https://www.python.org/" target="_self">python.org</a>,
<a href="javascript:alert(1)">bad</a> and <a href="../../../escape.html">out</a>.</p>
<img src="http://127.0.0.1:9/pixel.png" alt="a diagram"><img src="x" onerror="alert(2)">
<picture><source srcset="http://127.0.0.1:9/p.webp"></picture><video src="http://127.0.0.1:9/v.mp4"></video>
<iframe src="http://127.0.0.1:9/frame"></iframe><object data="http://127.0.0.1:9/o"></object>
<form action="http://127.0.0.1:9/f"><input name="q"><button formaction="http://127.0.0.1:9/g">Go</button></form>
<svg><script>alert(3)</script><image href="http://127.0.0.1:9/svg.png"/></svg>
<math><mi xlink:href="javascript:alert(4)">x</mi></math><!-- <script>alert(5)</script> -->
<table><tr><td colspan="2" rowspan="x" style="background:url(http://127.0.0.1:9/td)">cell</td></tr></table>
<p dir="rtl" lang="ar" title="t">` + "\u202e" + `مرحبا</p><template><img src="http://127.0.0.1:9/t"></template><noscript><img src="http://127.0.0.1:9/n"></noscript>
</body></html>`
	got := ReaderHTML("py", "library/json.html", []byte(page))
	for _, bad := range []string{"<script", "window.ran", "alert", "onload", "onclick", "onerror", "127.0.0.1:9", "<img", "<link", "<style", "<iframe",
		"<object", "<form", "<input", "<svg", "<math", "<base", "<video", "<picture", "style=", "class=", "id=", "target=", "javascript", "escape.html", "<!--", "rowspan"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q survived:\n%s", bad, got)
		}
	}
	for _, good := range []string{"<h1>Title</h1>", `<a href="zim://py/library/csv.html">csv</a>`, `<a href="https://www.python.org/"`, "bad and out.",
		"[image: a diagram]", `<td colspan="2">cell</td>`, `dir="rtl"`, `lang="ar"`} {
		if !strings.Contains(got, good) {
			t.Errorf("%q is missing:\n%s", good, got)
		}
	}
}

// Markup nested 20,000 deep is read without running out of stack, and
// a plain-text entry is escaped.
func TestReaderHTMLDeepAndText(t *testing.T) {
	page := "<html><body>" + strings.Repeat("<div>", 20000) + "deep" + strings.Repeat("</div>", 20000) + "</body></html>"
	if got := ReaderHTML("py", "a.html", []byte(page)); !strings.Contains(got, "deep") {
		t.Fatalf("%.200s", got)
	}
	if got := ReaderText([]byte("<script>x</script>\xff")); got != "<pre>&lt;script&gt;x&lt;/script&gt;\uFFFD</pre>" {
		t.Fatal(got)
	}
}

// The page's main part, where it marks one, without the site's
// navigation; a page without one, whole.
func TestReaderHTMLMain(t *testing.T) {
	page := `<html><body><div class="sphinxsidebar"><h3>Table of Contents</h3></div>
<div class="body" role="main"><h1>json</h1><div><p>inner</p></div><p>after the inner div</p></div><div class="footer">Copyright</div></body></html>`
	got := ReaderHTML("py", "library/json.html", []byte(page))
	if got != "<div><h1>json</h1><div><p>inner</p></div><p>after the inner div</p></div>" {
		t.Fatalf("main part: %s", got)
	}
	if got := ReaderHTML("py", "a.html", []byte(`<nav>Home</nav><p>text</p>`)); !strings.Contains(got, "Home") || !strings.Contains(got, "text") {
		t.Fatalf("no main part: %s", got)
	}
	if got := ReaderHTML("py", "a.html", []byte(`<nav>Home</nav><main> </main><p>text</p>`)); !strings.Contains(got, "text") {
		t.Fatalf("an empty main part: %s", got)
	}
}
