package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rehome/backend/core"
	"rehome/backend/knowledge"
)

// A real Debian manual (GNU libtasn1's, made by Texinfo: "Chapter 3:
// Utilities" then "7" atop each page, a chapter's first page its number
// alone) read by the real sandbox's pdftotext: the running heads and the
// page numbers are in the pages as read, and out of the pages rehome
// indexes and of every chunk, also a chapter's of two pages; each page's
// text is its read text less a few lines at its edges.
func TestPDFRunningHeadsDropped(t *testing.T) {
	needPodman(t)
	const manual = "/usr/share/doc/libtasn1-doc/libtasn1.pdf"
	if _, err := os.Stat(manual); err != nil {
		t.Skipf("%s is missing (sudo apt-get install libtasn1-doc): %v", manual, err)
	}
	data := t.TempDir()
	c := core.New(data, core.Options{})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k := knowledge.New(filepath.Join(data, "knowledge"), knowledge.Options{Run: c.Runs()})
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	raw, err := k.ReadInSandbox(ctx, manual, "libtasn1.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := k.Extract(ctx, manual, "libtasn1.pdf")
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`^(Chapter \d+|Appendix [A-Z]): .+$`)
	headed := 0
	for _, p := range raw.Sections {
		if head.MatchString(firstLine(p.Text)) {
			headed++
		}
	}
	if headed < 10 {
		t.Fatalf("only %d of %d pages as read start with a running head: the manual changed? page 10: %.300q", headed, len(raw.Sections), raw.Sections[min(9, len(raw.Sections)-1)].Text)
	}
	byPage := map[int]string{}
	for _, p := range raw.Sections {
		byPage[p.Page] = p.Text
	}
	shown := false
	for _, p := range doc.Sections {
		before := byPage[p.Page]
		if !strings.Contains(before, strings.TrimSpace(p.Text)) {
			t.Errorf("page %d is not its read text less its edges:\n%.400q\nof\n%.400q", p.Page, p.Text, before)
		}
		for _, l := range strings.Split(p.Text, "\n") {
			if head.MatchString(strings.TrimSpace(l)) {
				t.Errorf("page %d keeps a running head: %q", p.Page, l)
			}
		}
		if first := firstLine(p.Text); regexp.MustCompile(`^\d+$`).MatchString(first) {
			t.Errorf("page %d starts with its page number still: %q", p.Page, first)
		}
		if gone := lineCount(before) - lineCount(p.Text); gone > 6 {
			t.Errorf("page %d lost %d lines (at most 3 at each edge)", p.Page, gone)
		}
		if !shown && head.MatchString(firstLine(before)) && p.Page > 8 {
			t.Logf("page %d as read:\n%.500s\n… as indexed:\n%.500s", p.Page, before, p.Text)
			shown = true
		}
	}
	if len(doc.Sections) < len(raw.Sections)-2 {
		t.Errorf("%d pages indexed of %d read", len(doc.Sections), len(raw.Sections))
	}

	// The chunks the answers cite carry no running head either.
	if _, err := k.Add(ctx, "a1", []string{manual}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := k.Chunks("a1")
	if err != nil || len(chunks) < 20 {
		t.Fatalf("%d chunks: %v", len(chunks), err)
	}
	heads := map[string]bool{}
	for _, p := range raw.Sections {
		if first := firstLine(p.Text); head.MatchString(first) {
			heads[strings.Join(strings.Fields(first), " ")] = true
		}
	}
	for _, ch := range chunks {
		text := strings.Join(strings.Fields(ch.Text), " ")
		for h := range heads {
			if strings.Contains(text, h) {
				t.Errorf("chunk %d (page %d) holds the running head %q", ch.N, ch.Page, h)
			}
		}
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func lineCount(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
