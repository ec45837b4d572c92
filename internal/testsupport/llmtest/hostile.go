package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The ways a Hostile server misbehaves. Each streams until the client
// goes away (or, for the bounded ones, until it has sent its size).
const (
	HostileDeltas    = "deltas"    // 64 KiB content deltas without end
	HostileLine      = "line"      // one 300 MB data line
	HostileCall      = "call"      // one python call whose arguments are 100 MB
	HostileReasoning = "reasoning" // 64 KiB reasoning deltas without end
	HostileComments  = "comments"  // 64 KiB keep-alive comments without end, as fast as it can
	HostilePing      = "ping"      // ": ping" every Every, without end
	HostileTrickle   = "trickle"   // one character of content every Every, without end
	// HostileChatty answers each request within every per-answer bound —
	// 900 KiB of words and a python call with new code — so that only
	// the bound on a whole question stops it. Its calls need a sandbox,
	// so it is not in HostileModes.
	HostileChatty = "chatty"
)

// HostileModes are every mode, in a fixed order.
var HostileModes = []string{HostileDeltas, HostileLine, HostileCall, HostileReasoning, HostileComments, HostilePing, HostileTrickle}

// HostileModel is the one model a Hostile server lists.
const HostileModel = "hostile"

// HostileHandler is a model server that lists one model and answers every
// chat completion by misbehaving as mode says; every paces the slow modes.
func HostileHandler(mode string, every time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/v1/models":
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, HostileModel)
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, req)
			return
		}
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(s string) bool {
			if _, err := io.WriteString(w, s); err != nil {
				return false
			}
			fl.Flush()
			return req.Context().Err() == nil
		}
		chunk := func(delta any) string {
			data, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta}}})
			return "data: " + string(data) + "\n\n"
		}
		block := strings.Repeat("a", 64<<10)
		switch mode {
		case HostileDeltas:
			ev := chunk(map[string]any{"content": block})
			for send(ev) {
			}
		case HostileReasoning:
			ev := chunk(map[string]any{"reasoning_content": block})
			for send(ev) {
			}
		case HostileComments:
			ev := ": " + block + "\n"
			for send(ev) {
			}
		case HostileLine:
			if !send(`data: {"choices":[{"index":0,"delta":{"content":"`) {
				return
			}
			for n := 0; n < 300_000_000; n += len(block) {
				if !send(block) {
					return
				}
			}
			send("\"}}]}\n\ndata: [DONE]\n\n")
		case HostileCall:
			first := chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_0", "type": "function",
				"function": map[string]any{"name": "python", "arguments": `{"code": "`}}}})
			if !send(first) {
				return
			}
			frag := chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": "# " + block[:len(block)-3] + `\n`}}}})
			for n := 0; n < 100_000_000; n += len(block) {
				if !send(frag) {
					return
				}
			}
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `print(1)"}`}}}}) +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
		case HostileChatty:
			code, _ := json.Marshal(map[string]string{"code": fmt.Sprintf("print(%d)", time.Now().UnixNano())})
			send(chunk(map[string]any{"content": strings.Repeat(block, 15)[:900<<10]}) +
				chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_0", "type": "function",
					"function": map[string]any{"name": "python", "arguments": string(code)}}}}) +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
		case HostilePing, HostileTrickle:
			ev := ": ping\n\n"
			if mode == HostileTrickle {
				ev = chunk(map[string]any{"content": "a"})
			}
			t := time.NewTicker(every)
			defer t.Stop()
			for send(ev) {
				select {
				case <-t.C:
				case <-req.Context().Done():
					return
				}
			}
		default:
			http.Error(w, "no such hostile mode "+mode, http.StatusInternalServerError)
		}
	})
}

// Hostile starts a HostileHandler on loopback and stops it when the test
// ends.
func Hostile(t testing.TB, mode string, every time.Duration) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(HostileHandler(mode, every))
	t.Cleanup(s.Close)
	return s
}
