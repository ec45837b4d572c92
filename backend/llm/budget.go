package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// BytesPerToken is how rehome counts tokens without the model's
// tokenizer: one token per 4 bytes of UTF-8 text, rounded up — the rule
// of thumb for English with the Llama, Qwen and GPT tokenizers (code and
// other languages take more tokens per byte, so budgets keep a margin).
const BytesPerToken = 4

// EstimateTokens is s counted in tokens as BytesPerToken says.
func EstimateTokens(s string) int { return (len(s) + BytesPerToken - 1) / BytesPerToken }

// ContextInfo is a model's context length and where it was read.
type ContextInfo struct {
	Tokens int    `json:"tokens"`
	Source string `json:"source"`
}

// AnswerReserve is the part of the context kept free for the model's
// answer (and its thinking): a quarter of it, at most 2,048 tokens.
func AnswerReserve(ctxTokens int) int { return min(ctxTokens/4, 2048) }

// ollamaDefaultContext is what Ollama runs a model with when num_ctx is
// not set (OLLAMA_CONTEXT_LENGTH's default since 0.6.7; it cuts a longer
// prompt without saying so, ollama/ollama#6026).
const ollamaDefaultContext = 4096

var numCtx = regexp.MustCompile(`(?m)^num_ctx\s+(\d+)`)

// ContextLength reads the context length model runs with from the
// server: llama-server's /props (n_ctx of its slots), Ollama's /api/show
// (num_ctx in the model's parameters, else Ollama's default, which it
// uses even when the model could take more); else the catalog's maximum
// for the model; zero when nothing says.
func (c *Client) ContextLength(ctx context.Context, model string) ContextInfo {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	root := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	hc := c.http()
	if body, ok := get(ctx, hc, root+"/props"); ok {
		var v struct {
			NCtx     int `json:"n_ctx"`
			Defaults struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if json.Unmarshal(body, &v) == nil {
			if n := max(v.NCtx, v.Defaults.NCtx); n > 0 {
				return ContextInfo{n, "the server (llama-server /props n_ctx)"}
			}
		}
	}
	q, _ := json.Marshal(map[string]string{"model": model})
	if body, ok := do(ctx, hc, http.MethodPost, root+"/api/show", strings.NewReader(string(q))); ok {
		var v struct {
			Parameters string         `json:"parameters"`
			ModelInfo  map[string]any `json:"model_info"`
		}
		if json.Unmarshal(body, &v) == nil && (v.ModelInfo != nil || v.Parameters != "") {
			if m := numCtx.FindStringSubmatch(v.Parameters); m != nil {
				if n, _ := strconv.Atoi(m[1]); n > 0 {
					return ContextInfo{n, "the server (Ollama /api/show num_ctx)"}
				}
			}
			n := ollamaDefaultContext
			for k, val := range v.ModelInfo {
				if f, ok := val.(float64); ok && strings.HasSuffix(k, ".context_length") && int(f) < n {
					n = int(f)
				}
			}
			return ContextInfo{n, "Ollama's default num_ctx (the model's Modelfile sets none)"}
		}
	}
	if m, ok := catalogModel(model); ok && m.MaxContext > 0 {
		return ContextInfo{m.MaxContext, "rehome's catalog (the model's maximum; the server may run it with less)"}
	}
	return ContextInfo{}
}

// askState is the state of one question the tools share: the sources
// numbered so far and the room left in the context.
type askState struct {
	text    string
	sources []Citation
	ctx     int // the context length, 0: unknown
	used    int // tokens the next request takes so far
	calls   int // tool calls other than python
}

// budget is how many tokens a tool's output may take: half of what the
// context has left after the answer's reserve (the other half for the
// turns that follow), 0 when the context is unknown.
func (q *askState) budget() int {
	if q.ctx <= 0 {
		return 0
	}
	return max((q.ctx-AnswerReserve(q.ctx)-q.used)/2, 64)
}

func messagesTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateTokens(m.Content) + 4
		for _, tc := range m.ToolCalls {
			n += EstimateTokens(tc.Function.Arguments) + EstimateTokens(tc.Function.Name)
		}
	}
	return n
}

func toolsTokens(r *registry, mode string) int {
	if mode != ModeTools {
		return 0
	}
	data, _ := json.Marshal(r.wire())
	return EstimateTokens(string(data))
}

// fitHistory keeps the latest exchanges of history that fit the context
// with fixed tokens already taken, and says how many were left out ("" when none).
func fitHistory(history []Message, ctxTokens, fixed int) ([]Message, string) {
	if ctxTokens <= 0 || len(history) == 0 {
		return history, ""
	}
	room := ctxTokens - AnswerReserve(ctxTokens) - fixed
	// Keep room for a tool's results: at least a quarter of the context.
	room -= ctxTokens / 4
	start := len(history)
	used := 0
	for i := len(history) - 1; i >= 0; i-- {
		used += EstimateTokens(history[i].Content) + 4
		if used > room {
			break
		}
		start = i
	}
	// Whole exchanges only: never an answer without its question.
	for start < len(history) && history[start].Role != "user" {
		start++
	}
	if start == 0 {
		return history, ""
	}
	left := 0
	for _, m := range history[:start] {
		if m.Role == "user" {
			left++
		}
	}
	return history[start:], fmt.Sprintf("The %d earliest question(s) of this conversation and their answers were left out to fit the model's context of %d tokens; the model does not see them.", left, ctxTokens)
}
