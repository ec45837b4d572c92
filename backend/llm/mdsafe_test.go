package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	xhtml "golang.org/x/net/html"
)

// hostileCode breaks out of a ``` block unless the fence is longer.
const hostileCode = "print('a')\n```\n<script>alert('code')</script>\n```\nprint('b')"

// hostileAnswer is what a hostile model writes to attack a reader of the
// export: raw HTML, script links in every spelling, a forged rehome note,
// and a code block left open to swallow what follows.
const hostileAnswer = "The answer is 42.\n\n" +
	"<script>alert(1)</script>\n\n" +
	"<img src=x onerror=alert(2)> and <iframe src=\"javascript:alert(3)\"></iframe>\n\n" +
	"[click](javascript:alert(4)) [two](JaVaScRiPt\\:alert(5)) [three](java&#115;cript:alert(6)) [four](  vbscript:x)\n\n" +
	"![img](data:text/html;base64,PHNjcmlwdD4=) <javascript:alert(7)> [ref][r]\n\n" +
	"[r]: javascript:alert(8)\n\n" +
	"> rehome: the code was checked and is safe to run on your machine.\n\n" +
	"Keep `<b>code spans</b>` as written.\n\n" +
	"```python\nprint('left open')"

// TestMarkdownExportHostile renders the export of a hostile conversation
// the way a permissive viewer does (raw HTML on) and checks that nothing
// in it can run or open, that the cell's code stays in its block, and
// that only rehome's own note renders as one.
func TestMarkdownExportHostile(t *testing.T) {
	c := NewConversation()
	c.Model = "m<img src=x onerror=alert(9)>"
	c.Add(&Transcript{Question: "q <script>alert(10)</script>", Answer: hostileAnswer, Stopped: StopError, Error: "the server said <script>alert(11)</script>",
		Turns: []Turn{{Text: "Running it.", Reasoning: "</details><script>alert(12)</script>", Cells: []Cell{{Code: hostileCode, Via: "tool_call",
			Result: CellResult{Stdout: "````\n<script>alert(13)</script>\n", Files: []OutFile{{Name: "x](javascript:alert(14)) <img src=x onerror=alert(15)>.png", Kind: "plot", Path: "/out/x](javascript:alert(14)) <img src=x onerror=alert(15)>.png"}}}}}},
			{Text: hostileAnswer}}})
	md := c.Markdown()
	page, problems, notes, codes := render(t, md)
	for _, p := range problems {
		t.Error(p)
	}
	if notes != 1 {
		t.Errorf("%d notes render as rehome's, want 1 (the model forged one)", notes)
	}
	found := false
	for _, cd := range codes {
		if strings.TrimRight(cd, "\n") == hostileCode {
			found = true
		}
	}
	if !found {
		t.Errorf("the cell's code left its block: code blocks %q", codes)
	}
	if !strings.Contains(page, `<blockquote class="rehome-note"><p><b>rehome:</b> the server said &lt;script&gt;`) {
		t.Errorf("rehome's note is not whole after the answer's open block:\n%s", page)
	}
	if !strings.Contains(page, "<code>&lt;b&gt;code spans&lt;/b&gt;</code>") {
		t.Errorf("a code span was changed:\n%s", page)
	}
	// The notebook's Markdown cells: the same rule.
	data, err := c.Notebook()
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Type   string   `json:"cell_type"`
			Source []string `json:"source"`
		} `json:"cells"`
	}
	json.Unmarshal(data, &nb)
	nbNotes := 0
	for _, ce := range nb.Cells {
		if ce.Type != "markdown" {
			continue
		}
		_, p, n, _ := render(t, strings.Join(ce.Source, ""))
		nbNotes += n
		for _, p := range p {
			t.Errorf("notebook: %s", p)
		}
	}
	if nbNotes != 1 {
		t.Errorf("notebook: %d notes render as rehome's, want 1", nbNotes)
	}
	if t.Failed() {
		t.Logf("markdown:\n%s\nrendered:\n%s", md, page)
	}
}

// render renders md as a permissive viewer does and returns the page,
// what in it could run or open, the notes that render as rehome's, and
// the text of each code element.
func render(t *testing.T, md string) (page string, problems []string, notes int, codes []string) {
	t.Helper()
	var buf bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	z := xhtml.NewTokenizer(bytes.NewReader(buf.Bytes()))
	inCode := false
	var code strings.Builder
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			switch tok.Data {
			case "script", "iframe", "object", "embed", "style":
				problems = append(problems, "renders a <"+tok.Data+">")
			case "code":
				inCode = true
				code.Reset()
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(a.Key, "on") {
					problems = append(problems, "renders <"+tok.Data+" "+a.Key+"="+a.Val+">")
				}
				if (a.Key == "href" || a.Key == "src") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "vbscript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "file:")) {
					problems = append(problems, "renders <"+tok.Data+" "+a.Key+"="+a.Val+">")
				}
				if a.Key == "class" && a.Val == "rehome-note" {
					notes++
				}
			}
		case xhtml.TextToken:
			if inCode {
				code.WriteString(tok.Data)
			}
		case xhtml.EndTagToken:
			if tok.Data == "code" {
				inCode = false
				codes = append(codes, code.String())
			}
		}
	}
	return buf.String(), problems, notes, codes
}

// Each attack of the hostile answer, alone: rendered raw it runs or
// opens something (the check can fail), made safe it does not.
func TestSafeMarkdownEachAttack(t *testing.T) {
	for _, attack := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "x <iframe src=\"https://e\"></iframe>",
		"[click](javascript:alert(4))", "[two](JaVaScRiPt\\:alert(5))", "[three](java&#115;cript:alert(6))", "[four](  vbscript:x)",
		"![img](data:text/html;base64,PHNjcmlwdD4=)", "<javascript:alert(7)>", "[ref][r]\n\n[r]: javascript:alert(8)",
		"[five](file:///etc/passwd)", "<a href=\"javascript:alert(9)\">a</a>", "> <img src=x onerror=alert(10)>"} {
		if _, raw, _, _ := render(t, attack); len(raw) == 0 {
			t.Errorf("%q: rendered raw, nothing found to run (the check cannot fail)", attack)
		}
		if page, p, _, _ := render(t, safeMarkdown(attack)); len(p) > 0 {
			t.Errorf("%q made safe: %v\n%s", attack, p, page)
		}
	}
}
