package llm

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// LoopTool is one tool the loop offers the model: python, file_search,
// an OpenAPI action. Tool-calling models are given each as a function;
// a model without tool calling gets what UpFront returns for the
// question instead.
type LoopTool struct {
	// Name is the function's name on the wire.
	Name string
	// Description tells the model what the tool does and when to call it.
	Description string
	// Parameters is the JSON Schema of the call's arguments.
	Parameters map[string]any
	// Prompt, when set, is a paragraph of the system prompt about the
	// tool (for both modes).
	Prompt string
	// Call runs one call. It never fails: a call that could not run says
	// so in its output's Text and Error.
	Call func(ctx context.Context, in ToolInput) ToolOutput
	// UpFront, when set, is what a model without tool calling is given
	// before the question (file_search: the top passages for it).
	UpFront func(ctx context.Context, in ToolInput) ToolOutput
	// Hints say what a call does to the world, for the faces that show
	// the tool to other programs (MCP's tool annotations); nil: unknown.
	Hints *ToolHints
}

// ToolHints are what a tool's calls do, as MCP's tool annotations say
// it: ReadOnly changes nothing; Destructive may change or delete (the
// user confirms every call); OpenWorld reaches outside rehome.
type ToolHints struct {
	Title       string
	ReadOnly    bool
	Destructive bool
	OpenWorld   bool
}

// ToolInput is one call of a LoopTool.
type ToolInput struct {
	// Arguments are the call's arguments, JSON text as the model wrote
	// them ("" for UpFront).
	Arguments string
	// Question is the user's question being answered.
	Question string
	// FirstCitation is the number the call's first source takes, so that
	// [n] stays unique across the calls of one question.
	FirstCitation int
	// BudgetTokens is how many tokens (see EstimateTokens) the output may
	// take to fit the model's context; 0: no limit known.
	BudgetTokens int
}

// ToolOutput is what a call gave: the text the model reads, and what
// rehome keeps beside it.
type ToolOutput struct {
	// Text is fed back to the model.
	Text string
	// Citations are the sources Text numbers [n], from FirstCitation on.
	Citations []Citation
	// Notes say what the user should know (results cut to fit the
	// context), in words.
	Notes []string
	// Error is set when the call could not run (bad arguments, no index).
	Error string
	// Ref names what the call changed, for the face's Undo (the memory
	// tool: "remember:ID"); "" when nothing can be undone.
	Ref string
}

// Citation is a source an answer cites as [N]: a passage of one of the
// assistant's knowledge files.
type Citation struct {
	N    int    `json:"n"`
	File string `json:"file"`
	// Page and PageEnd are the PDF pages (or PPTX slides) the passage
	// spans; 0 when the format has none.
	Page    int `json:"page,omitempty"`
	PageEnd int `json:"page_end,omitempty"`
	// Section is the heading path (DOCX, HTML, Markdown), or the sheet.
	Section string `json:"section,omitempty"`
	// Quote is the passage.
	Quote string `json:"quote"`
	// URL and Title place a page browsing read: a web page's address or
	// a carried library's zim://BOOK/PATH (File is then the title too).
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// ToolUse is one call of a tool other than python in a turn (python's
// calls are Cells): what was asked, what the model was given back.
type ToolUse struct {
	Name string `json:"name"`
	// Via is "tool_call", or "up_front" for what a model without tool
	// calling was given before the question.
	Via        string     `json:"via"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Arguments  string     `json:"arguments,omitempty"`
	Fed        string     `json:"fed"`
	Citations  []Citation `json:"citations,omitempty"`
	Notes      []string   `json:"notes,omitempty"`
	Error      string     `json:"error,omitempty"`
	// Ref names what the call changed, for Undo (see ToolOutput.Ref).
	Ref string `json:"ref,omitempty"`
}

// registry is the loop's tools by name, python first.
type registry struct {
	order []LoopTool
	by    map[string]int
}

func (l *Loop) registry() *registry {
	r := &registry{by: map[string]int{}}
	add := func(t LoopTool) {
		if _, dup := r.by[t.Name]; dup || t.Name == "" {
			return
		}
		r.by[t.Name] = len(r.order)
		r.order = append(r.order, t)
	}
	add(l.pythonEntry())
	for _, t := range l.Tools {
		add(t)
	}
	return r
}

// wire is the tools as a request carries them.
func (r *registry) wire() []Tool {
	out := make([]Tool, 0, len(r.order))
	for _, t := range r.order {
		out = append(out, Tool{Type: "function", Function: ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return out
}

// lookup finds the tool a call names. A name that is not registered but
// reads like code ("python3", "run_code": small models do that) is the
// python tool, as it always was; anything else is not found.
func (r *registry) lookup(name string) (LoopTool, bool) {
	if i, ok := r.by[name]; ok {
		return r.order[i], true
	}
	if n := strings.ToLower(name); name == "" || strings.Contains(n, "python") || strings.Contains(n, "code") {
		return r.order[r.by[ToolName]], true
	}
	return LoopTool{}, false
}

// names lists the tools for a model that called one that does not exist.
func (r *registry) names() string {
	var s []string
	for _, t := range r.order {
		s = append(s, "`"+t.Name+"`")
	}
	return strings.Join(s, ", ")
}

// citeMark matches a citation marker: [3], [1, 2], [1][4], [2-3].
var citeMark = regexp.MustCompile(`\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\]`)

// Cited returns the citations of sources whose number text cites, in
// the order of their numbers; markers naming no source are ignored.
func Cited(text string, sources []Citation) []Citation {
	by := map[int]Citation{}
	for _, c := range sources {
		by[c.N] = c
	}
	seen := map[int]bool{}
	for _, m := range citeMark.FindAllStringSubmatch(text, -1) {
		for _, part := range strings.Split(m[1], ",") {
			lo, hi, ok := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
			a, _ := strconv.Atoi(strings.TrimSpace(lo))
			b := a
			if ok {
				b, _ = strconv.Atoi(strings.TrimSpace(hi))
			}
			for n := a; n <= b && n-a < 50; n++ {
				if _, ok := by[n]; ok {
					seen[n] = true
				}
			}
		}
	}
	out := []Citation{}
	for n := range seen {
		out = append(out, by[n])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

// callTool runs one call of a tool other than python and records it.
func (l *Loop) callTool(ctx context.Context, q *askState, tool LoopTool, tc ToolCall) ToolUse {
	in := ToolInput{Arguments: tc.Function.Arguments, Question: q.text, FirstCitation: len(q.sources) + 1, BudgetTokens: q.budget()}
	out := tool.Call(ctx, in)
	q.sources = append(q.sources, out.Citations...)
	return ToolUse{Name: tool.Name, Via: "tool_call", ToolCallID: tc.ID, Arguments: tc.Function.Arguments,
		Fed: out.Text, Citations: out.Citations, Notes: out.Notes, Error: out.Error, Ref: out.Ref}
}

// upFront gives a model without tool calling what each tool has for the
// question (file_search's passages), as one block of the system prompt.
func (l *Loop) upFront(ctx context.Context, q *askState, reg *registry) (string, []ToolUse) {
	var b strings.Builder
	var uses []ToolUse
	for _, t := range reg.order {
		if t.UpFront == nil {
			continue
		}
		out := t.UpFront(ctx, ToolInput{Question: q.text, FirstCitation: len(q.sources) + 1, BudgetTokens: q.budget()})
		q.sources = append(q.sources, out.Citations...)
		uses = append(uses, ToolUse{Name: t.Name, Via: "up_front", Fed: out.Text, Citations: out.Citations, Notes: out.Notes, Error: out.Error})
		if strings.TrimSpace(out.Text) != "" {
			fmt.Fprintf(&b, "\n# %s for this question\n%s\n", t.Name, out.Text)
		}
	}
	return b.String(), uses
}
