package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// searchTool is a file_search entry over two fixed passages, recording
// what it was asked.
type searchTool struct {
	calls, upfront []ToolInput
}

func (s *searchTool) entry() LoopTool {
	out := func(in ToolInput) ToolOutput {
		c1 := Citation{N: in.FirstCitation, File: "manual.pdf", Page: 4, Quote: "The warranty lasts two years from the date of purchase."}
		c2 := Citation{N: in.FirstCitation + 1, File: "manual.pdf", Page: 9, PageEnd: 10, Quote: "Batteries are covered for six months."}
		return ToolOutput{Text: "[1] manual.pdf, page 4: The warranty lasts two years from the date of purchase.\n[2] manual.pdf, pages 9-10: Batteries are covered for six months.",
			Citations: []Citation{c1, c2}}
	}
	return LoopTool{Name: "file_search", Description: "Searches the assistant's files.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []string{"query"}},
		Prompt:     "Cite the passages you use as [n].",
		Call:       func(_ context.Context, in ToolInput) ToolOutput { s.calls = append(s.calls, in); return out(in) },
		UpFront:    func(_ context.Context, in ToolInput) ToolOutput { s.upfront = append(s.upfront, in); return out(in) },
	}
}

func toolNames(req ChatRequest) []string {
	var n []string
	for _, t := range req.Tools {
		n = append(n, t.Function.Name)
	}
	return n
}

// A tool-calling model gets python and file_search as two entries of
// one list, calls file_search, and its answer's [1] and [2] become the
// transcript's citations.
func TestLoopToolRegistryFileSearch(t *testing.T) {
	r := newReplay(t, "knowledge-tools")
	st := &searchTool{}
	l, evs := newLoop(t, r, &fakeExec{}, "qwen2.5:7b")
	l.Tools = []LoopTool{st.entry()}
	tr := ask(t, l, "How long is the warranty?")
	if tr.Stopped != StopAnswered {
		t.Fatalf("stopped %q: %s %s", tr.Stopped, tr.Note, tr.Error)
	}
	reqs := r.requests()
	if got := strings.Join(toolNames(reqs[0]), ","); got != "python,file_search" {
		t.Fatalf("tools offered %q, want python,file_search", got)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "Cite the passages you use as [n].") {
		t.Errorf("the tool's prompt is not in the system prompt")
	}
	if len(st.calls) != 1 || !strings.Contains(st.calls[0].Arguments, "warranty") || st.calls[0].FirstCitation != 1 || st.calls[0].Question != "How long is the warranty?" {
		t.Fatalf("file_search calls %+v", st.calls)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.Name != "file_search" || !strings.Contains(last.Content, "page 4") {
		t.Fatalf("the model was fed %+v", last)
	}
	if len(tr.Turns[0].Tools) != 1 || tr.Turns[0].Tools[0].Name != "file_search" || len(tr.Turns[0].Cells) != 0 {
		t.Fatalf("turn 0 %+v", tr.Turns[0])
	}
	if len(tr.Citations) != 2 || tr.Citations[0].N != 1 || tr.Citations[0].Page != 4 || tr.Citations[1].PageEnd != 10 || tr.Citations[1].File != "manual.pdf" {
		t.Fatalf("citations %+v", tr.Citations)
	}
	data, _ := json.Marshal(tr)
	for _, k := range []string{`"citations":[{"n":1,"file":"manual.pdf","page":4,"quote":`, `"page_end":10`} {
		if !strings.Contains(string(data), k) {
			t.Errorf("transcript JSON lacks %s: %s", k, data)
		}
	}
	for _, e := range *evs {
		if e.Type == "cell_start" {
			t.Errorf("a file_search call ran a cell")
		}
	}
}

// A model without tool calling (Ollama refuses tools) gets the passages
// for the question up front, in the system prompt, and cites them.
func TestLoopFencedGetsPassagesUpFront(t *testing.T) {
	r := newReplay(t, "knowledge-fenced")
	st := &searchTool{}
	l, _ := newLoop(t, r, &fakeExec{}, "gemma2:2b")
	l.Tools = []LoopTool{st.entry()}
	tr := ask(t, l, "How long is the warranty?")
	if tr.Stopped != StopAnswered || tr.Mode != ModeFenced {
		t.Fatalf("stopped %q mode %q: %s %s", tr.Stopped, tr.Mode, tr.Note, tr.Error)
	}
	reqs := r.requests()
	if len(reqs) != 2 || len(reqs[1].Tools) != 0 {
		t.Fatalf("%d requests; second offers %v", len(reqs), toolNames(reqs[len(reqs)-1]))
	}
	if len(st.calls) != 0 || len(st.upfront) != 1 || st.upfront[0].Question != "How long is the warranty?" {
		t.Fatalf("calls %+v, up front %+v", st.calls, st.upfront)
	}
	if sys := reqs[1].Messages[0].Content; !strings.Contains(sys, "# file_search for this question") || !strings.Contains(sys, "two years from the date of purchase") {
		t.Fatalf("system prompt lacks the passages:\n%s", sys)
	}
	if len(tr.Citations) != 1 || tr.Citations[0].N != 1 || tr.Citations[0].Page != 4 {
		t.Fatalf("citations %+v", tr.Citations)
	}
	if tr.Turns[0].Tools[0].Via != "up_front" {
		t.Errorf("turn 0 %+v", tr.Turns[0])
	}
}

// A long conversation is cut to the model's context, oldest first, and
// the transcript says so; the tool is given a budget within the context.
func TestLoopContextBudgetCutsHistoryAndSaysSo(t *testing.T) {
	r := newReplay(t, "knowledge-tools")
	st := &searchTool{}
	l, evs := newLoop(t, r, &fakeExec{}, "qwen2.5:7b")
	l.Tools = []LoopTool{st.entry()}
	l.Context = ContextInfo{Tokens: 4096, Source: "test"}
	long := strings.Repeat("word ", 1200) // ~1,500 tokens
	for i := 0; i < 4; i++ {
		l.History = append(l.History, Message{Role: "user", Content: "question " + long}, Message{Role: "assistant", Content: "answer " + long})
	}
	tr := ask(t, l, "How long is the warranty?")
	if tr.Stopped != StopAnswered {
		t.Fatalf("stopped %q", tr.Stopped)
	}
	if len(tr.Cuts) == 0 || !strings.Contains(tr.Cuts[0], "earliest question(s)") || !strings.Contains(tr.Cuts[0], "4096 tokens") {
		t.Fatalf("cuts %q", tr.Cuts)
	}
	noted := false
	for _, e := range *evs {
		noted = noted || (e.Type == "note" && strings.Contains(e.Text, "left out to fit"))
	}
	if !noted {
		t.Errorf("no note event said what was cut")
	}
	first := r.requests()[0]
	if n := messagesTokens(first.Messages); n > 4096-AnswerReserve(4096) {
		t.Errorf("the first request takes %d tokens, over the context less the answer's reserve", n)
	}
	if b := st.calls[0].BudgetTokens; b <= 0 || b >= 4096 {
		t.Errorf("file_search budget %d tokens", b)
	}
	if tr.ContextTokens != 4096 {
		t.Errorf("context %d", tr.ContextTokens)
	}
}

func TestCited(t *testing.T) {
	src := []Citation{{N: 1, File: "a"}, {N: 2, File: "b"}, {N: 3, File: "c"}, {N: 4, File: "d"}}
	got := Cited("As [2] says, and [1, 3]; not [9]; see [3-4][2].", src)
	var ns []int
	for _, c := range got {
		ns = append(ns, c.N)
	}
	if len(ns) != 4 || ns[0] != 1 || ns[3] != 4 {
		t.Fatalf("cited %v", ns)
	}
	if c := Cited("no markers here [x]", src); len(c) != 0 {
		t.Fatalf("cited %v", c)
	}
}

func TestRegistryLookup(t *testing.T) {
	l := &Loop{Tools: []LoopTool{{Name: "file_search"}, {Name: "python"}}}
	reg := l.registry()
	if len(reg.order) != 2 {
		t.Fatalf("a tool named python replaced the code tool: %d entries", len(reg.order))
	}
	for name, want := range map[string]string{"file_search": "file_search", "python3": "python", "run_code": "python", "": "python"} {
		if got, ok := reg.lookup(name); !ok || got.Name != want {
			t.Errorf("lookup %q = %q, want %q", name, got.Name, want)
		}
	}
	if _, ok := reg.lookup("getWeather"); ok {
		t.Errorf("an unknown tool was found")
	}
}

// The context length is read where each server says it.
func TestContextLength(t *testing.T) {
	for _, tc := range []struct {
		name, path, file, model string
		want                    int
		source                  string
	}{
		{"llama-server", "GET /props", "testdata/discovery/llama-server-props.json", "m", 4096, "llama-server /props"},
		{"ollama without num_ctx", "POST /api/show", "testdata/discovery/ollama-show-qwen2.5.json", "qwen2.5:7b", 4096, "Ollama's default"},
		{"ollama with num_ctx", "POST /api/show", "testdata/discovery/ollama-show-numctx.json", "qwen2.5:7b", 8192, "num_ctx"},
		{"catalog", "GET /nothing", "", "qwen2.5:7b", 32768, "catalog"},
		{"unknown", "GET /nothing", "", "no-such-model", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReplay(t, "")
			if tc.file != "" {
				r.extra[tc.path] = tc.file
			}
			got := (&Client{BaseURL: r.base()}).ContextLength(context.Background(), tc.model)
			if tc.name == "catalog" && got.Tokens > 0 {
				tc.want = got.Tokens // the catalog's figure, whatever it is
			}
			if got.Tokens != tc.want || !strings.Contains(got.Source, tc.source) {
				t.Fatalf("got %+v, want %d from %q", got, tc.want, tc.source)
			}
		})
	}
}
