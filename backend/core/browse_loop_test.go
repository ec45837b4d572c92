package core

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"rehome/backend/llm"
	"rehome/internal/testsupport/tinymodel"
)

// scriptedModel stands in for llama-server until the browsing wire is
// recorded (TestBrowseRealModel): an OpenAI chat-completions stream,
// chunk for chunk in the shape of llama-server's own
// (backend/llm/testdata/action-tools), that calls web_search, then
// open_url, then answers as tinymodel.BrowseScript does. It keeps each
// request.
func scriptedModel(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	chunk := func(w io.Writer, delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": finish, "index": 0, "delta": delta}},
			"created": 1796136728, "id": "chatcmpl-scripted", "model": "rehome-tiny", "object": "chat.completion.chunk"})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	call := func(w io.Writer, name, args string) {
		chunk(w, map[string]any{"role": "assistant", "content": nil}, nil)
		chunk(w, map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call-" + name, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}, nil)
		chunk(w, map[string]any{}, "tool_calls")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1:
			call(w, "web_search", `{"query": "json decoder"}`)
		case 2:
			call(w, "open_url", `{"url": "zim://py/library/json.html"}`)
		default:
			chunk(w, map[string]any{"role": "assistant", "content": nil}, nil)
			for _, s := range tinymodel.BrowseScript().Answer {
				chunk(w, map[string]any{"content": s}, nil)
			}
			chunk(w, map[string]any{}, "stop")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), bodies...) }
}

// The ask loop with the browsing tools (real kiwix-serve, the real
// sandbox) and a scripted model: the answer's [1] and [2] become
// citations into the carried library — [1] the opened page, which was
// the search's first hit, [2] the second hit — and the model was given
// the hits and the page's text.
func TestBrowseLoopCitations(t *testing.T) {
	needPodmanCore(t)
	c := openCore(t, t.TempDir(), Options{})
	a := browsingAssistant(t, c)
	tools, notes, err := c.Browse().AddTools(nil, nil, a.ID, false)
	if err != nil || len(tools) != 2 || len(notes) != 0 {
		t.Fatalf("tools %d %v %v", len(tools), notes, err)
	}
	srv, bodies := scriptedModel(t)
	tr := (&llm.Loop{Client: &llm.Client{BaseURL: srv.URL + "/v1"}, Model: "rehome-tiny", Mode: llm.ModeTools, Tools: tools}).Ask(t.Context(), "What decodes JSON in Python?")
	if tr.Stopped != llm.StopAnswered {
		t.Fatalf("stopped %s: %s %s", tr.Stopped, tr.Error, tr.Note)
	}
	checkBrowsed(t, tr)
	b := bodies()
	if len(b) != 3 || !strings.Contains(b[1], "[1] json — JSON encoder and decoder") || !strings.Contains(b[2], "JSONDecoder ( * , object_hook") {
		t.Fatalf("%d requests; the hits and the page reached the model: %v %v", len(b), len(b) > 1 && strings.Contains(b[1], "[1] json"), len(b) > 2 && strings.Contains(b[2], "object_hook"))
	}
}
