package knowledge

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A PDF's running heads and feet — "242 / gnuplot 5.4", "Chapter 2:
// Using GNU libtasn1 3", a lone page number — are part of each page's
// text as pdftotext reads it, and would sit inside every passage an
// answer cites. They are the lines that repeat at the top or the bottom
// of many pages once their numbers are set aside.
const (
	// edgeLines is how many lines at a page's top and at its bottom may
	// be a running head or foot.
	edgeLines = 3
	// minRepeats is on how many pages a line must stand at an edge to be
	// taken for a running one.
	minRepeats = 3
)

// dropRunningLines returns a PDF's pages without their running heads
// and feet: a line among the first or last edgeLines non-blank lines of
// a page whose text (numbers aside, for the outermost: placeKey) stands
// at the same place on at least minRepeats pages (half the pages, for an
// inner line); and a page number alone as a page's first or last
// line, when at least minRepeats pages are numbered the same way (the
// printed number the PDF's page plus one offset, or roman numerals), and
// a short line outside such a page number (a head's text beside it).
// Only a page's outermost lines go: the first line that is not a running
// one ends the cut, so the body is kept whole. A page left empty is
// dropped.
func dropRunningLines(pages []Section) []Section {
	counts := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, e := range edges(strings.Split(p.Text, "\n")) {
			if k := placeKey(e.text, e.at, p.Page); k != "" {
				if at := e.at + "|" + k; !seen[at] {
					seen[at] = true
					counts[at]++
				}
			}
		}
	}
	// An inner line (a head's second line) runs on half the pages or
	// more: a body's line that recurs near an edge now and then stays.
	need := func(at, k string) int {
		if at == "t0" || at == "b0" || strings.HasPrefix(k, "#page") || k == "#roman" {
			return minRepeats
		}
		return max(minRepeats, (len(pages)+1)/2)
	}
	out := make([]Section, 0, len(pages))
	for _, p := range pages {
		lines := strings.Split(p.Text, "\n")
		running := func(line, at string) bool {
			k := placeKey(line, at, p.Page)
			return k != "" && counts[at+"|"+k] >= need(at, k)
		}
		nb := nonBlank(lines)
		lo, hi := cut(lines, func(line, at string) bool {
			if running(line, at) {
				return true
			}
			// The head's text beside its page number (Texinfo: "Chapter 3:
			// Utilities", then "7"), which differs from chapter to chapter:
			// a short line outside a page number that runs.
			if len(nb) < 3 || len(line) > maxHead {
				return false
			}
			switch at {
			case "t0":
				return isNumber(nb[1]) && running(nb[1], "t1")
			case "b0":
				return isNumber(nb[len(nb)-2]) && running(nb[len(nb)-2], "b1")
			}
			return false
		})
		p.Text = strings.Join(lines[lo:hi], "\n")
		if strings.TrimSpace(p.Text) != "" {
			out = append(out, p)
		}
	}
	return out
}

// placeKey is what a line at a place on a page shares with the running
// lines of the other pages: a page number its numbering; the outermost
// line its text with numbers aside (a head's page number, a chapter's);
// an inner one (a head's second line) its text as it is, so that a body's
// "Step 1", "Step 2" are not taken for a running line. "" is none.
func placeKey(line, at string, page int) string {
	k := runningKey(line)
	switch {
	case k == "":
		return ""
	case isPageNumber(k):
		return numbering(line, page)
	case at == "t0" || at == "b0":
		return k
	}
	return strings.Join(strings.Fields(line), " ")
}

// maxHead bounds a running head's text beside its page number.
const maxHead = 100

// isNumber says whether a line is a page number alone.
func isNumber(line string) bool { return isPageNumber(runningKey(line)) }

// nonBlank returns a page's non-blank lines.
func nonBlank(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// edge is a line near a page's top or bottom and its place there: "t0"
// the first non-blank line, "b0" the last, "t1" the one after the first…
type edge struct{ text, at string }

// edges returns the first and last edgeLines non-blank lines of a page,
// each with its place.
func edges(lines []string) []edge {
	nb := nonBlank(lines)
	var out []edge
	for i := 0; i < edgeLines && i < len(nb); i++ {
		out = append(out, edge{nb[i], fmt.Sprintf("t%d", i)}, edge{nb[len(nb)-1-i], fmt.Sprintf("b%d", i)})
	}
	return out
}

// numbering is what a page number alone shares with the others of its
// kind: its offset from the PDF's page ("#page+8": printed 9 on page
// 1), or "#roman".
func numbering(line string, page int) string {
	digits := strings.TrimFunc(line, func(r rune) bool { return !unicode.IsDigit(r) })
	if i := strings.IndexFunc(digits, func(r rune) bool { return !unicode.IsDigit(r) }); i >= 0 {
		digits = digits[:i]
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return "#roman"
	}
	return fmt.Sprintf("#page%+d", n-page)
}

// cut returns the bounds of a page's lines without its running ones:
// from the top and from the bottom, non-blank line by non-blank line
// (up to edgeLines each) while running says so of the line at its place
// (blank lines between them go too).
func cut(lines []string, running func(line, at string) bool) (lo, hi int) {
	lo, hi = 0, len(lines)
	for n := 0; lo < hi && n < edgeLines; lo++ {
		if strings.TrimSpace(lines[lo]) == "" {
			continue
		}
		if !running(lines[lo], fmt.Sprintf("t%d", n)) {
			break
		}
		n++
	}
	for n := 0; hi > lo && n < edgeLines; hi-- {
		if strings.TrimSpace(lines[hi-1]) == "" {
			continue
		}
		if !running(lines[hi-1], fmt.Sprintf("b%d", n)) {
			break
		}
		n++
	}
	return lo, hi
}

// runningKey is a line as its repeats share it: spaces collapsed, each
// run of digits "#"; "" for a line with no letter or digit (a brace
// closing code at a page's foot is not a running foot).
func runningKey(line string) string {
	var b strings.Builder
	alnum, digits, space := false, false, false
	for _, r := range strings.TrimSpace(line) {
		switch {
		case unicode.IsDigit(r):
			if !digits {
				if space {
					b.WriteByte(' ')
				}
				b.WriteByte('#')
			}
			alnum, digits, space = true, true, false
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			alnum = alnum || unicode.IsLetter(r)
			space = false
		}
		digits = false
	}
	if !alnum {
		return ""
	}
	return b.String()
}

// isPageNumber says whether a key is a page number alone: "#", "- # -",
// "page #", "# of #", "page # of #", or a small roman numeral (a
// preface's pages).
func isPageNumber(k string) bool {
	switch strings.ToLower(k) {
	case "#", "- # -", "-#-", "page #", "# of #", "page # of #", "# / #", "[#]", "(#)":
		return true
	}
	return k != "" && (roman.MatchString(k) || roman.MatchString(strings.ToLower(k)) && k == strings.ToUpper(k))
}

// roman is a roman numeral up to 399 in small letters.
var roman = regexp.MustCompile(`^c{0,3}(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$`)
