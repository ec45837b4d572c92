package llm

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	textm "github.com/yuin/goldmark/text"
)

// fence matches a fenced code block: the opening fence (three or more
// backticks or tildes) with its info string, the body, the closing fence.
var fence = regexp.MustCompile("(?ms)^[ \t]*(```+|~~~+)[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)\n?[ \t]*(```+|~~~+)[ \t]*$")

// pythonInfo are the info strings of a block rehome may run.
var pythonInfo = map[string]bool{"python": true, "py": true, "python3": true, "ipython": true}

// ActionBlock decides whether a message (visible text only: thinking is
// never looked at) asks rehome to run code, for models without tool
// calling (the loop asks it only in fenced mode: with tools, only a tool
// call runs code). The rule: the message's last block, read as Markdown
// (goldmark), is run when it is a closed ```python (py, python3, ipython)
// block at the top level and nothing but white space follows its closing
// fence. A block followed by words — the model explaining or quoting code
// in its answer — is shown and never run; so is a block in another
// language, one left unclosed, one quoted (inside a blockquote or a list)
// and one shown inside a longer fence.
func ActionBlock(text string) (code string, ok bool) {
	src := []byte(text)
	doc := mdParser.Parse(textm.NewReader(src))
	fc, isFence := doc.LastChild().(*ast.FencedCodeBlock)
	if !isFence || fc.Info == nil || !pythonInfo[strings.ToLower(string(fc.Language(src)))] {
		return "", false
	}
	// The opening fence: the run of ` or ~ that ends where the info
	// string begins (after blanks).
	open := strings.TrimRight(text[strings.LastIndexByte(text[:fc.Info.Segment.Start], '\n')+1:fc.Info.Segment.Start], " \t")
	open = strings.TrimLeft(open, " \t")
	if len(open) < 3 {
		return "", false
	}
	lines := fc.Lines()
	var b strings.Builder
	rest := text[fc.Info.Segment.Stop:]
	if lines.Len() > 0 {
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(src))
		}
		rest = text[lines.At(lines.Len()-1).Stop:]
	} else if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[i+1:]
	}
	// Closed: what follows the body is one fence line of the same
	// character, at least as long, then only white space.
	closing := strings.TrimSpace(rest)
	if len(closing) < len(open) || strings.Trim(closing, open[:1]) != "" {
		return "", false
	}
	code = strings.TrimSuffix(b.String(), "\n")
	if strings.TrimSpace(code) == "" {
		return "", false
	}
	return code, true
}

// stripFences removes fenced blocks, leaving the prose around them.
func stripFences(text string) string {
	return strings.TrimSpace(fence.ReplaceAllString(text, ""))
}

// PythonBlocks are the closed ```python (py, python3, ipython) blocks of
// a text read as Markdown, wherever they sit, in order: those the Ask
// screen offers to run when the user clicks Run.
func PythonBlocks(text string) []string {
	src := []byte(text)
	doc := mdParser.Parse(textm.NewReader(src))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || fc.Info == nil || !pythonInfo[strings.ToLower(string(fc.Language(src)))] {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for i := 0; i < fc.Lines().Len(); i++ {
			seg := fc.Lines().At(i)
			b.Write(seg.Value(src))
		}
		if code := strings.TrimSuffix(b.String(), "\n"); strings.TrimSpace(code) != "" {
			out = append(out, code)
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}
