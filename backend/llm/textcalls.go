package llm

import (
	"encoding/json"
	"strings"
)

// The text of a call left in the content: <tool_call>…</tool_call> blocks
// (the Hermes and Qwen format). A server leaves a call there when it was
// not given tools — llama-server asked without `tools` or with
// tool_choice "none", as on the loop's last step and in fenced mode — or
// has no parser for the model's format. While streaming, a block's text is
// sent as code, not as words (a tagSplitter); at the end, a block that
// parses as {"name": …, "arguments": …} becomes a tool call and any other
// stays in the text where it was (splitTextCalls), so nothing is lost.
const (
	openCall  = "<tool_call>"
	closeCall = "</tool_call>"
)

// splitTextCalls takes the blocks that are calls out of s, in order; an
// unclosed last block (a call cut at the token limit) counts when it
// parses.
func splitTextCalls(s string) (string, []ToolCall) {
	var out strings.Builder
	var calls []ToolCall
	for {
		i := strings.Index(s, openCall)
		if i < 0 {
			out.WriteString(s)
			break
		}
		out.WriteString(s[:i])
		body, after, closed := strings.Cut(s[i+len(openCall):], closeCall)
		var c struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(body)), &c) == nil && c.Name != "" && len(c.Arguments) > 0 {
			calls = append(calls, ToolCall{Type: "function", Function: FunctionCall{Name: c.Name, Arguments: rawArguments(c.Arguments).text}})
		} else {
			out.WriteString(openCall + body)
			if closed {
				out.WriteString(closeCall)
			}
		}
		if !closed {
			break
		}
		s = after
	}
	return out.String(), calls
}

// tagSplitter separates the text inside open…close blocks from the text
// outside them as it streams, holding back a possible tag split across
// chunks: <think> blocks from visible text, and <tool_call> blocks.
type tagSplitter struct {
	open, close string
	in          bool
	buf         string
	opened      int // blocks opened so far
}

const (
	openThink  = "<think>"
	closeThink = "</think>"
)

// feed returns the outside and inside text that s completes.
func (t *tagSplitter) feed(s string) (out, inside string) {
	t.buf += s
	var o, in strings.Builder
	for {
		tag := t.open
		if t.in {
			tag = t.close
		}
		if i := strings.Index(t.buf, tag); i >= 0 {
			if t.in {
				in.WriteString(t.buf[:i])
			} else {
				o.WriteString(t.buf[:i])
				t.opened++
			}
			t.buf = t.buf[i+len(tag):]
			t.in = !t.in
			continue
		}
		keep := partialSuffix(t.buf, tag)
		rest := t.buf[:len(t.buf)-keep]
		t.buf = t.buf[len(t.buf)-keep:]
		if t.in {
			in.WriteString(rest)
		} else {
			o.WriteString(rest)
		}
		return o.String(), in.String()
	}
}

// flush returns what was held back, outside or inside a block.
func (t *tagSplitter) flush() (out, inside string) {
	s := t.buf
	t.buf = ""
	if t.in {
		return "", s
	}
	return s, ""
}

// partialSuffix is the length of the longest suffix of s that begins tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
