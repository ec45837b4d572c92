package llm

import (
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// An exported conversation is opened in Markdown viewers that render raw
// HTML and follow links (an editor's preview, a notes app, a wiki). The
// model's words, a cell's file names and a server's messages are not
// rehome's: they are written so that nothing in them runs or opens when
// rendered, and so that they cannot pass for rehome's own notes.
//
//   - Outside code, every < and & of their text is escaped: no raw HTML
//     (<script>, <img onerror>, <iframe>, an autolink), no character
//     reference that spells a scheme (java&#115;cript:). Code blocks and
//     code spans are left as written: a renderer shows their text.
//   - A link or image whose destination is javascript:, vbscript:, data:
//     or file: gets its colon percent-encoded (a relative link that goes
//     nowhere), the words of the link kept.
//   - A code block the model left open is closed where its text ends, so
//     it cannot swallow what follows.
//   - rehome's notes are the only raw HTML in the document (see
//     rehomeNote): the model's text cannot produce one.

var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// dangerousLink finds the scheme of a link destination, inline ([t](x)
// or ![t](x)) or in a reference definition ([r]: x), that may run code
// or read local files when followed.
var dangerousLink = regexp.MustCompile(`(?im)(\]\(\s*|^[ \t]{0,3}\[[^\]\n]*\]:[ \t]*\n?[ \t]*)(javascript|vbscript|data|file)\\?:`)

// safeMarkdown returns the model's (or a cell's, or a server's) Markdown
// made safe to render inside rehome's document (see above).
func safeMarkdown(s string) string {
	src := []byte(s)
	doc := mdParser.Parse(text.NewReader(src))
	var keep []text.Segment
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				keep = append(keep, lines.At(i))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					keep = append(keep, t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(keep, func(i, j int) bool { return keep[i].Start < keep[j].Start })
	var b strings.Builder
	pos := 0
	for _, k := range keep {
		if k.Start < pos || k.Stop > len(s) {
			continue
		}
		b.WriteString(neutralText(s[pos:k.Start]))
		b.WriteString(s[k.Start:k.Stop])
		pos = k.Stop
	}
	b.WriteString(neutralText(s[pos:]))
	return closeFence(b.String())
}

var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;")

// neutralText escapes raw HTML and character references in text outside
// code, and defuses dangerous link schemes.
func neutralText(s string) string {
	return dangerousLink.ReplaceAllString(textEscaper.Replace(s), "${1}${2}%3A")
}

var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// closeFence closes a fenced code block left open at the end of s.
func closeFence(s string) string {
	open := ""
	for _, ln := range strings.Split(s, "\n") {
		m := fenceLine.FindStringSubmatch(strings.TrimRight(ln, "\r"))
		switch {
		case m == nil:
		case open == "":
			if m[1][0] != '`' || !strings.Contains(m[2], "`") {
				open = m[1]
			}
		case m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "":
			open = ""
		}
	}
	if open != "" {
		return strings.TrimRight(s, "\n") + "\n" + open
	}
	return s
}

// fenceFor is a backtick fence longer than any run of backticks in s, so
// that nothing in s can close the block early.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// codeBlock fences s as a block of lang.
func codeBlock(lang, s string) string {
	f := fenceFor(s)
	return f + lang + "\n" + s + "\n" + f + "\n\n"
}

// rehomeNote is one of rehome's own notes: raw HTML, which the model's
// escaped text can never produce, so a reader can tell it from the
// model's words. Its words (which may quote a server) are escaped.
func rehomeNote(s string) string {
	return `<blockquote class="rehome-note"><p><b>rehome:</b> ` + html.EscapeString(oneLine(s)) + "</p></blockquote>\n\n"
}

// linkDest writes a path as a link destination: spaces, parentheses,
// brackets and anything that could end or bend the link percent-encoded.
func linkDest(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch {
		case r <= ' ' || r == 0x7f || strings.ContainsRune(`()<>[]\"'`+"`&", r):
			for _, c := range []byte(string(r)) {
				b.WriteString("%" + strings.ToUpper(hex2(c)))
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// linkText writes a name as the words of a link: brackets and what
// starts Markdown escaped.
var linkText = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "<", "&lt;", "&", "&amp;", "`", "\\`", "*", `\*`, "_", `\_`, "!", `\!`)
