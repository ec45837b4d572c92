package llm

import (
	"math"
	"time"
)

// TurnStats is how one reply of the model went: the wall time of the call,
// the tokens read and written, and the writing speed. The counts come from
// the server (OpenAI's usage, llama-server's timings) and are zero when it
// sent none; TokensPerSecond is the server's own figure when it timed the
// answer (Source "server"), else tokens over the call's wall time
// (Source "measured", which counts the prompt's reading too).
type TurnStats struct {
	MS               int64   `json:"ms"`
	PromptTokens     int     `json:"prompt_tokens,omitempty"`
	CompletionTokens int     `json:"completion_tokens,omitempty"`
	TokensPerSecond  float64 `json:"tokens_per_second,omitempty"`
	Source           string  `json:"source,omitempty"`
}

// statsOf reads a reply's usage and timings; took is the call's wall time.
func statsOf(r Reply, took time.Duration) *TurnStats {
	s := &TurnStats{MS: took.Milliseconds(), PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}
	switch {
	case r.TokensPerSecond > 0:
		s.TokensPerSecond, s.Source = r.TokensPerSecond, "server"
	case r.GenerationMS > 0 && r.CompletionTokens > 0:
		s.TokensPerSecond, s.Source = float64(r.CompletionTokens)/(r.GenerationMS/1000), "server"
	case r.CompletionTokens > 0 && took > 0:
		s.TokensPerSecond, s.Source = float64(r.CompletionTokens)/took.Seconds(), "measured"
	}
	s.TokensPerSecond = math.Round(s.TokensPerSecond*10) / 10
	return s
}
