package zimtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// DocsDir is where python3.11-doc installs the HTML documentation.
const DocsDir = "/usr/share/doc/python3.11/html"

// Need skips t, saying why, when zimwriterfs, kiwix-serve or the HTML are
// missing (build/setup.sh test installs them).
func Need(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"zimwriterfs", "kiwix-serve"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipped: %s is not installed (build/setup.sh test installs zim-tools and kiwix-tools)", bin)
		}
	}
	if _, err := os.Stat(filepath.Join(DocsDir, "library", "json.html")); err != nil {
		t.Skipf("skipped: %s is missing (build/setup.sh test installs python3.11-doc)", DocsDir)
	}
}

// Pages lists the documentation's HTML pages (relative to DocsDir) whose
// path starts with prefix, sorted; n > 0 keeps the first n.
func Pages(t testing.TB, prefix string, n int) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(DocsDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(DocsDir, p)
		if strings.HasPrefix(rel, prefix) && !strings.HasPrefix(rel, "_") {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Build packs pages (from Pages) into a ZIM titled title, named name in
// its metadata; with sections, each <section id=…> of each page is also
// an article of its own (library/json.html#json-decoder →
// library/json.html.s/json-decoder.html). The ZIM is cached by its
// inputs; the returned path must not be written to.
func Build(t testing.TB, name, title string, pages []string, sections bool) string {
	t.Helper()
	Need(t)
	h := sha256.New()
	fmt.Fprintf(h, "v2 %s %s %v\n", name, title, sections)
	for _, p := range pages {
		fi, err := os.Stat(filepath.Join(DocsDir, p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", p, fi.Size())
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	cache := filepath.Join(os.TempDir(), "rehome-zimtest", key)
	out := filepath.Join(cache, name+".zim")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	src := filepath.Join(cache, "src")
	os.RemoveAll(cache)
	articles := 0
	for _, p := range pages {
		data, err := os.ReadFile(filepath.Join(DocsDir, p))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(src, p), data)
		articles++
		if sections {
			for id, page := range split(data) {
				write(t, filepath.Join(src, p+".s", id+".html"), page)
				articles++
			}
		}
	}
	index := "<!DOCTYPE html><html><head><title>" + html.EscapeString(title) + "</title></head><body><h1>" + html.EscapeString(title) + "</h1><ul>"
	for _, p := range pages {
		index += `<li><a href="` + p + `">` + p + `</a></li>`
	}
	write(t, filepath.Join(src, "index.html"), []byte(index+"</ul></body></html>"))
	// A 48×48 PNG illustration, which zimwriterfs requires.
	write(t, filepath.Join(src, "illustration.png"), png48())
	tmp := out + ".part"
	cmd := exec.Command("zimwriterfs", "--welcome=index.html", "--illustration=illustration.png", "--language=eng",
		"--title="+title, "--description=The Python 3.11 documentation (Debian's python3.11-doc)", "--creator=Python Software Foundation",
		"--publisher=rehome tests", "--name="+name, src, tmp)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		t.Fatalf("zimwriterfs (%d articles): %v\n%s", articles, err, buf.String())
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(src)
	return out
}

func write(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// split makes each <section id=…> of a page an HTML page of its own,
// titled by its heading and the page's title.
func split(data []byte) map[string][]byte {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	pageTitle := ""
	out := map[string][]byte{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "title" && n.FirstChild != nil {
			pageTitle = n.FirstChild.Data
		}
		if n.Type == html.ElementNode && n.Data == "section" {
			if id := attr(n, "id"); id != "" && !strings.ContainsAny(id, "/\\") {
				var b bytes.Buffer
				heading := strings.TrimSuffix(strings.TrimSpace(textOf(firstHeading(n))), "¶")
				b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(heading+" — "+pageTitle) + "</title></head><body>")
				html.Render(&b, n)
				b.WriteString("</body></html>")
				out[id] = b.Bytes()
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func firstHeading(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && len(c.Data) == 2 && c.Data[0] == 'h' && c.Data[1] >= '1' && c.Data[1] <= '6' {
			return c
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
