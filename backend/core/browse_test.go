package core

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rehome/backend/browse"
	"rehome/internal/testsupport/zimtest"
)

// browseZIM is the small test ZIM: the json and csv modules' pages and
// the tutorial, from the real Python docs.
func browseZIM(t *testing.T) string {
	t.Helper()
	zimtest.Need(t)
	pages := append(zimtest.Pages(t, "library/j", 0), zimtest.Pages(t, "library/cs", 0)...)
	pages = append(pages, zimtest.Pages(t, "tutorial/", 0)...)
	return zimtest.Build(t, "python311-test", "Python 3.11 docs (test)", pages, false)
}

func withLibrary(t *testing.T, c *Core) browse.Library {
	t.Helper()
	lib, err := c.Browse().AddLibrary(t.Context(), browseZIM(t), browse.AddOptions{Name: "py"})
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// A library's article is opened by its zim:// address and its text
// extracted inside the sandbox: the heading path kept, no markup.
func TestBrowseOpenArticleInSandbox(t *testing.T) {
	needPodmanCore(t)
	c := openCore(t, t.TempDir(), Options{})
	withLibrary(t, c)
	a, err := c.Browse().Open(t.Context(), "zim://py/library/json.html", false, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Title, "JSON encoder and decoder") || a.Source != "zim://py/library/json.html" || a.Library != "Python 3.11 docs (test)" {
		t.Fatalf("article %q %q %q", a.Title, a.Source, a.Library)
	}
	if !strings.Contains(a.Text, "JSONDecoder ( * , object_hook") || strings.Contains(a.Text, "<div") || !strings.Contains(a.Text, "## json — JSON encoder and decoder › Basic Usage\n") || !strings.Contains(a.HTML, "<html") {
		t.Fatalf("text: %.600s", a.Text)
	}
}

// Hostile HTML from a stand-in web (the LAN allowed, so 127.0.0.1 may
// be fetched): scripts, styles and templates dropped, markup nested
// 20,000 deep, invalid UTF-8 and a right-to-left override — read inside
// the sandbox, nothing of the scripts in the text; a page that is not
// HTML, PDF or text is refused; air-gapped, web pages are not opened
// and libraries still are.
func TestBrowseOpenHostilePage(t *testing.T) {
	needPodmanCore(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/hostile":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>Hostile\u202e page</title><style>body{secret-style}</style><script>steal('SCRIPT-CANARY')</script></head><body>")
			fmt.Fprint(w, "<h1>Visible heading</h1><p>Visible text \xff\xfe here.</p><template>TEMPLATE-CANARY</template><noscript>NOSCRIPT-CANARY</noscript>")
			fmt.Fprint(w, strings.Repeat("<div>", 20000)+"deep text"+strings.Repeat("</div>", 20000))
			fmt.Fprint(w, "<img src=x onerror=\"alert('ONERROR-CANARY')\"><iframe src=\"javascript:alert(1)\"></iframe></body></html>")
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		}
	}))
	defer srv.Close()
	c := openCore(t, t.TempDir(), Options{})
	lan := true
	if _, err := c.Browse().SaveSettings(BrowsingChange{AllowLAN: &lan}); err != nil {
		t.Fatal(err)
	}
	a, err := c.Browse().Open(t.Context(), srv.URL+"/hostile", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, canary := range []string{"SCRIPT-CANARY", "secret-style", "TEMPLATE-CANARY", "NOSCRIPT-CANARY", "ONERROR-CANARY", "<"} {
		if strings.Contains(a.Text, canary) {
			t.Errorf("the text holds %q: %.300s", canary, a.Text)
		}
	}
	if !strings.Contains(a.Text, "Visible text") || !strings.Contains(a.Text, "Visible heading") || strings.ContainsRune(a.Title, '\u202e') {
		t.Fatalf("title %q text %.300s", a.Title, a.Text)
	}
	if _, err := c.Browse().Open(t.Context(), srv.URL+"/image", false, false); !errors.Is(err, browse.ErrPage) || !strings.Contains(err.Error(), "image/png") {
		t.Fatalf("an image: %v", err)
	}
	withLibrary(t, c)
	gapped := true
	st, err := c.Browse().SaveSettings(BrowsingChange{AirGapped: &gapped})
	if err != nil || !strings.Contains(st.Words, "air-gapped: the web is off; browsing reads 1 carried library") {
		t.Fatalf("settings %+v %v", st, err)
	}
	if _, err := c.Browse().Open(t.Context(), srv.URL+"/hostile", false, false); !errors.Is(err, browse.ErrAirGapped) {
		t.Fatalf("air-gapped web page: %v", err)
	}
	if _, err := c.Browse().Open(t.Context(), "zim://py/library/csv.html", false, false); err != nil {
		t.Fatalf("air-gapped library: %v", err)
	}
}
