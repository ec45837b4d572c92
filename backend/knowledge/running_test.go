package knowledge

import (
	"fmt"
	"strings"
	"testing"
)

// A manual's pages as pdftotext writes them, with gnuplot's running
// heads ("242 / gnuplot 5.4" on even pages, "gnuplot 5.4 / 243" on odd
// ones) and a page number at the foot: the heads and the numbers go, and
// the body stays whole — a line that recurs near the foot of a few pages
// ("Syntax:"), a code listing's closing brace at a page's foot, a number
// in a table at the foot.
func TestDropRunningLines(t *testing.T) {
	styles := []string{"boxes", "lines", "points", "impulses", "steps", "dots", "vectors", "circles"}
	var pages, want []Section
	for i, style := range styles {
		n := 240 + i
		head := fmt.Sprintf("%d / gnuplot 5.4", n)
		if n%2 == 1 {
			head = fmt.Sprintf("gnuplot 5.4 / %d", n)
		}
		body := fmt.Sprintf("Plot style %s\n\nThe %s style draws the data.\nSyntax:\n      plot 'file' with %s", style, style, style)
		switch i {
		case 2:
			body = "int main() {\n  return 0;\n}"
		case 3:
			body = "Sizes:\nTable 3\n17"
		}
		pages = append(pages, Section{Page: i + 1, Text: head + "\n\n" + body + "\n\n" + fmt.Sprint(n) + "\n"})
		want = append(want, Section{Page: i + 1, Text: body})
	}
	got := dropRunningLines(pages)
	if len(got) != len(want) {
		t.Fatalf("%d pages, not %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("page %d:\n%q, want\n%q", got[i].Page, got[i].Text, want[i].Text)
		}
	}
	t.Logf("before: %q\nafter:  %q", pages[0].Text, got[0].Text)
}

// A short file, or lines that repeat on fewer than minRepeats pages, is
// left as it is; a body's numbered lines near the top are not a running
// head; a page that was only its running lines is dropped.
func TestDropRunningLinesLeavesWhatDoesNotRepeat(t *testing.T) {
	two := []Section{{Page: 1, Text: "Report\n\nfirst page\n1"}, {Page: 2, Text: "Report\n\nsecond page\n2"}}
	if got := dropRunningLines(two); len(got) != 2 || got[0] != two[0] || got[1] != two[1] {
		t.Fatalf("two pages changed: %+v", got)
	}
	var pages []Section
	for i := 1; i <= 4; i++ {
		pages = append(pages, Section{Page: i, Text: fmt.Sprintf("Kettle manual\nStep %d: fill it.\n%d", i, i)})
	}
	pages = append(pages, Section{Page: 5, Text: "Kettle manual\n\n5"})
	got := dropRunningLines(pages)
	if len(got) != 4 {
		t.Fatalf("%d pages, want 4 (the empty one dropped): %+v", len(got), got)
	}
	for i, p := range got {
		if want := fmt.Sprintf("Step %d: fill it.", i+1); p.Text != want {
			t.Errorf("page %d: %q, want %q", p.Page, p.Text, want)
		}
	}
}

func TestRunningKey(t *testing.T) {
	for in, want := range map[string]string{
		"242 / gnuplot 5.4":                        "# / gnuplot #.#",
		"  Chapter 2:   Using GNU  libtasn1   13 ": "Chapter #: Using GNU libtasn# #",
		"- 7 -": "- # -",
		"}":     "",
		"":      "",
	} {
		if got := runningKey(in); got != want {
			t.Errorf("runningKey(%q) = %q, want %q", in, got, want)
		}
	}
	for k, want := range map[string]bool{"#": true, "- # -": true, "Page # of #": true, "xiv": true, "XIV": true, "civil": false, "Xiv": false, "# / gnuplot #.#": false} {
		if got := isPageNumber(k); got != want {
			t.Errorf("isPageNumber(%q) = %v", k, got)
		}
	}
	if got := strings.Join([]string{numbering("242", 250), numbering("- 3 -", 1), numbering("xiv", 14)}, " "); got != "#page-8 #page+2 #roman" {
		t.Errorf("numbering: %s", got)
	}
}

// Texinfo's heads, as pdftotext reads libtasn1's manual: "Chapter 2:
// ASN.1 structure handling", then the page number on a line of its own;
// a chapter's first page its number alone. A chapter of two pages loses
// its head too (its text is beside a page number that runs).
func TestDropRunningLinesTexinfo(t *testing.T) {
	words := []string{"tags", "sets", "choices", "strings", "files", "options", "values", "errors"}
	heads := []string{"", "Chapter 2: ASN.1 structure handling", "Chapter 2: ASN.1 structure handling", "", "Chapter 3: Utilities", "Chapter 3: Utilities", "", "Chapter 4: Function reference"}
	var pages []Section
	for i, h := range heads {
		top := fmt.Sprint(i + 1)
		if h != "" {
			top = h + "\n\n" + top
		}
		pages = append(pages, Section{Page: i + 4, Text: fmt.Sprintf("%s\n\nBody of page %d.\nIt is about %s.\n", top, i+4, words[i])})
	}
	for i, p := range dropRunningLines(pages) {
		if want := fmt.Sprintf("Body of page %d.\nIt is about %s.", p.Page, words[i]); p.Text != want {
			t.Errorf("page %d: %q, want %q", p.Page, p.Text, want)
		}
	}
}
