package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// accumulator builds a Reply from chunks and forwards deltas.
type accumulator struct {
	onDelta func(Delta)
	think   tagSplitter     // <think> blocks out of the content
	text    tagSplitter     // <tool_call> blocks out of the visible text
	raw     strings.Builder // visible text with any <tool_call> blocks
	content strings.Builder
	reason  strings.Builder
	calls   []*ToolCall
	keys    []int // wire index of each call (-1: none given)
	finish  string
	done    bool
	prompt  int
	compl   int
	args    int     // bytes of all tool calls' arguments
	got     int     // bytes of answer the server sent: text, thinking, tool calls (what the idle cap counts)
	err     error   // a bound crossed (ErrTooLarge): the stream ends
	genMS   float64 // llama-server's timings.predicted_ms
	tps     float64 // llama-server's timings.predicted_per_second
}

// fit returns the part of s that the builder holding have bytes may
// still take under limit and under MaxReplyBytes for the whole answer;
// when s is cut, the answer ends with ErrTooLarge naming what.
func (a *accumulator) fit(s string, have, limit int, what string) string {
	room := min(limit-have, MaxReplyBytes-(a.content.Len()+a.reason.Len()+a.args))
	if s == "" || len(s) <= room {
		return s
	}
	if a.err == nil {
		if limit-have <= MaxReplyBytes-(a.content.Len()+a.reason.Len()+a.args) {
			a.err = tooLarge(what, limit)
		} else {
			a.err = tooLarge("answer (text, thinking and code together)", MaxReplyBytes)
		}
	}
	if room <= 0 {
		return ""
	}
	s = s[:room]
	for len(s) > 0 && !validEnd(s) {
		s = s[:len(s)-1]
	}
	return s
}

func newAccumulator(onDelta func(Delta)) *accumulator {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	return &accumulator{onDelta: onDelta,
		think: tagSplitter{open: openThink, close: closeThink},
		text:  tagSplitter{open: openCall, close: closeCall}}
}

func (a *accumulator) finished() bool { return a.done || a.finish != "" }

// wireChunk is one chunk as servers send it; loose types where servers
// disagree.
type wireChunk struct {
	Error   json.RawMessage `json:"error"`
	Choices []struct {
		Delta        *wireMessage `json:"delta"`
		Message      *wireMessage `json:"message"`
		FinishReason *string      `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Timings is llama-server's own account of the answer.
	Timings *struct {
		PromptN            int     `json:"prompt_n"`
		PredictedN         int     `json:"predicted_n"`
		PredictedMS        float64 `json:"predicted_ms"`
		PredictedPerSecond float64 `json:"predicted_per_second"`
	} `json:"timings"`
}

type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content"`
	Reasoning        *string        `json:"reasoning"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
}

type wireToolCall struct {
	Index    *int            `json:"index"`
	ID       json.RawMessage `json:"id"`
	Type     *string         `json:"type"`
	Function struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// chunk takes one event's JSON.
func (a *accumulator) chunk(data []byte) error {
	if a.err != nil {
		return a.err
	}
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("the model server sent an event that is not JSON (%v): %.200s", err, data)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return streamError(data)
	}
	if c.Usage != nil {
		a.prompt, a.compl = c.Usage.PromptTokens, c.Usage.CompletionTokens
	}
	if t := c.Timings; t != nil {
		if a.compl == 0 {
			a.prompt, a.compl = t.PromptN, t.PredictedN
		}
		a.genMS, a.tps = t.PredictedMS, t.PredictedPerSecond
	}
	for i, ch := range c.Choices {
		if i > 0 {
			break // n=1 is all rehome asks for
		}
		m := ch.Delta
		if m == nil {
			m = ch.Message
		}
		if m != nil {
			a.message(m)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
	return a.err
}

// whole takes a non-streamed chat.completion document.
func (a *accumulator) whole(data []byte) error {
	if err := a.chunk(data); err != nil {
		return err
	}
	if a.finish == "" {
		a.finish = "stop"
	}
	a.done = true
	return nil
}

func (a *accumulator) message(m *wireMessage) {
	for _, r := range []*string{m.ReasoningContent, m.Reasoning, m.Content} {
		if r != nil {
			a.got += len(*r)
		}
	}
	for _, tc := range m.ToolCalls {
		a.got += len(tc.Function.Arguments)
		if tc.Function.Name != nil {
			a.got += len(*tc.Function.Name)
		}
	}
	for _, r := range []*string{m.ReasoningContent, m.Reasoning} {
		if r != nil && *r != "" {
			if t := a.fit(*r, a.reason.Len(), MaxReasoningBytes, "thinking"); t != "" {
				a.reason.WriteString(t)
				a.onDelta(Delta{Reasoning: t})
			}
		}
	}
	if m.Content != nil && *m.Content != "" {
		vis, th := a.think.feed(*m.Content)
		a.emit(vis, th)
	}
	for _, tc := range m.ToolCalls {
		a.toolCall(tc)
	}
}

func (a *accumulator) emit(vis, th string) {
	if th = a.fit(th, a.reason.Len(), MaxReasoningBytes, "thinking"); th != "" {
		a.reason.WriteString(th)
		a.onDelta(Delta{Reasoning: th})
	}
	vis = a.fit(vis, a.raw.Len(), MaxTextBytes, "answer text")
	a.raw.WriteString(vis)
	vis, call := a.text.feed(vis)
	if call != "" {
		a.onDelta(Delta{ToolCall: &ToolCallDelta{Index: len(a.calls) + a.text.opened - 1, Arguments: call}})
	}
	if vis != "" {
		a.content.WriteString(vis)
		a.onDelta(Delta{Content: vis})
	}
}

// toolCall merges one tool-call fragment: keyed by its index when it has
// one, else by its id, else it continues the last call (or, when it names
// a function and the last call is named already, starts a new one).
func (a *accumulator) toolCall(tc wireToolCall) {
	id := rawID(tc.ID)
	name := ""
	if tc.Function.Name != nil {
		name = *tc.Function.Name
	}
	pos := -1
	switch {
	case tc.Index != nil:
		for i, k := range a.keys {
			if k == *tc.Index {
				pos = i
			}
		}
		// The same index again with a different id and a name: a new call
		// (some servers number every whole call 0).
		if pos >= 0 && id != "" && a.calls[pos].ID != "" && a.calls[pos].ID != id && name != "" {
			pos = -1
		}
	case id != "":
		for i, c := range a.calls {
			if c.ID == id {
				pos = i
			}
		}
	case len(a.calls) > 0 && !(name != "" && a.calls[len(a.calls)-1].Function.Name != ""):
		pos = len(a.calls) - 1
	}
	if pos < 0 && len(a.calls) >= MaxToolCalls {
		if a.err == nil {
			a.err = fmt.Errorf("%w: more than %d tool calls in one answer; rehome stopped it there (ask again, or try another model)", ErrTooLarge, MaxToolCalls)
		}
		return
	}
	if pos < 0 {
		k := -1
		if tc.Index != nil {
			k = *tc.Index
		}
		a.calls = append(a.calls, &ToolCall{Type: "function"})
		a.keys = append(a.keys, k)
		pos = len(a.calls) - 1
	}
	c := a.calls[pos]
	if id != "" && c.ID == "" {
		c.ID = id
	}
	if name != "" {
		// Names come whole; a server repeating it in each fragment is fine.
		if c.Function.Name == "" || c.Function.Name == name {
			c.Function.Name = name
		} else if len(c.Function.Name)+len(name) <= maxToolName {
			c.Function.Name += name
		} else if a.err == nil {
			a.err = tooLarge("one tool call's name", maxToolName)
		}
	}
	frag := rawArguments(tc.Function.Arguments)
	have := len(c.Function.Arguments)
	if frag.whole {
		a.args -= have
		have = 0
		c.Function.Arguments = ""
	}
	frag.text = a.fit(frag.text, have, MaxArgumentsBytes, "one tool call's code")
	c.Function.Arguments += frag.text
	a.args += len(frag.text)
	if frag.text != "" || name != "" {
		a.onDelta(Delta{ToolCall: &ToolCallDelta{Index: pos, Name: name, Arguments: frag.text}})
	}
}

// maxToolName bounds a tool call's name sent in fragments.
const maxToolName = 256

// rawID reads an id that may be a string, a number, or absent.
func rawID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

type argFragment struct {
	text  string
	whole bool // an object: the whole arguments, not a fragment
}

// rawArguments reads arguments sent as a JSON string (a fragment or the
// whole text) or as an object (Ollama's native shape, some proxies).
func rawArguments(raw json.RawMessage) argFragment {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return argFragment{}
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return argFragment{text: s}
		}
	}
	return argFragment{text: string(raw), whole: true}
}

// reply returns what has been received so far.
func (a *accumulator) reply() Reply {
	vis, th := a.think.flush()
	a.emit(vis, th)
	if rest, _ := a.text.flush(); rest != "" { // a call cut short stays out of the text
		a.content.WriteString(rest)
		a.onDelta(Delta{Content: rest})
	}
	content := a.content.String()
	calls := a.calls
	if a.text.opened > 0 {
		var text []ToolCall
		content, text = splitTextCalls(a.raw.String())
		for i := range text {
			calls = append(calls, &text[i])
		}
	}
	reasoning := a.reason.String()
	// A template that opens the thinking itself: the model's text holds
	// only the closing tag. Everything before it is thinking.
	if i := strings.Index(content, "</think>"); i >= 0 {
		reasoning += content[:i]
		content = content[i+len("</think>"):]
	}
	m := Message{Role: "assistant", Content: strings.TrimLeft(content, "\n"), Reasoning: reasoning}
	for i, c := range calls {
		tc := *c
		if tc.ID == "" {
			tc.ID = "call_" + strconv.Itoa(i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		m.ToolCalls = append(m.ToolCalls, tc)
	}
	return Reply{Message: m, FinishReason: a.finish, PromptTokens: a.prompt, CompletionTokens: a.compl,
		GenerationMS: a.genMS, TokensPerSecond: a.tps}
}
