package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"rehome/internal/testsupport/llamatest"
)

// TestStatsFromLlamaServerTimings: llama-server's own timings (recorded
// from the real server) give each turn its tokens and speed.
func TestStatsFromLlamaServerTimings(t *testing.T) {
	r := newReplay(t, "llama-server-real")
	l := &Loop{Client: &Client{BaseURL: r.base()}, Model: llamatest.Alias, Exec: &recordingExec{}, Stateless: true}
	tr := l.Ask(context.Background(), "Which region had the most revenue?")
	if len(tr.Turns) != 2 {
		t.Fatalf("turns %+v", tr.Turns)
	}
	s := tr.Turns[1].Stats
	// 02.sse: "predicted_n":5, "predicted_per_second":300.187617260788, "prompt_n":38.
	if s == nil || s.CompletionTokens != 5 || s.PromptTokens != 38 || s.TokensPerSecond != 300.2 || s.Source != "server" {
		t.Fatalf("stats %+v", s)
	}
	if tr.Turns[0].Stats == nil || tr.Turns[0].Stats.CompletionTokens == 0 {
		t.Fatalf("first turn stats %+v", tr.Turns[0].Stats)
	}
}

// TestStatsFromUsage: an OpenAI-compatible server's usage counts, timed by
// the call; a server that sends neither leaves the counts out.
func TestStatsFromUsage(t *testing.T) {
	for name, tc := range map[string]struct {
		tail   string
		tokens int
		source string
	}{
		"usage": {`data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":20}}` + "\n\n", 20, "measured"},
		"none":  {"", 0, ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`+"\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n"+tc.tail+"data: [DONE]\n\n")
		}))
		l := &Loop{Client: &Client{BaseURL: srv.URL + "/v1"}, Model: "m", Exec: &recordingExec{}, Stateless: true}
		tr := l.Ask(context.Background(), "hi")
		srv.Close()
		s := tr.Turns[0].Stats
		if s == nil || s.MS < 100 || s.CompletionTokens != tc.tokens || s.Source != tc.source {
			t.Fatalf("%s: stats %+v", name, s)
		}
		if tc.tokens > 0 && (s.TokensPerSecond <= 0 || s.TokensPerSecond > 200) {
			t.Fatalf("%s: %v tokens/s for 20 tokens in ≥0.1 s", name, s.TokensPerSecond)
		}
	}
}
