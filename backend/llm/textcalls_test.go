package llm

import (
	"strings"
	"testing"
)

// A <tool_call> block left in the content (a server given no tools, or
// without a parser for the model) becomes a tool call, split anywhere
// across chunks; a block that is not a call stays text.
func TestTextToolCalls(t *testing.T) {
	const body = "Let me look.<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print(1)\\n\"}}\n</tool_call>"
	for _, size := range []int{1, 2, 3, 7, len(body)} {
		var deltas []Delta
		acc := newAccumulator(func(d Delta) { deltas = append(deltas, d) })
		for i := 0; i < len(body); i += size {
			s := body[i:min(i+size, len(body))]
			acc.message(&wireMessage{Content: &s})
		}
		r := acc.reply()
		if r.Message.Content != "Let me look." || len(r.Message.ToolCalls) != 1 {
			t.Fatalf("chunks of %d: %+v", size, r.Message)
		}
		if c := r.Message.ToolCalls[0]; c.Function.Name != "python" || c.Function.Arguments != `{"code": "print(1)\n"}` || c.ID == "" {
			t.Fatalf("chunks of %d: call %+v", size, c)
		}
		var vis, code strings.Builder
		for _, d := range deltas {
			vis.WriteString(d.Content)
			if d.ToolCall != nil {
				code.WriteString(d.ToolCall.Arguments)
			}
		}
		if vis.String() != "Let me look." || !strings.Contains(code.String(), "print(1)") {
			t.Fatalf("chunks of %d: streamed %q and %q", size, vis.String(), code.String())
		}
	}
	for _, tc := range []struct{ in, content string }{
		{"Use <tool_call>tags</tool_call> like this.", "Use <tool_call>tags</tool_call> like this."},
		{"Cut <tool_call>\n{\"name\": \"python\", \"argu", "Cut <tool_call>\n{\"name\": \"python\", \"argu"},
		{"a < b and <tool_ca", "a < b and <tool_ca"},
	} {
		acc := newAccumulator(nil)
		acc.message(&wireMessage{Content: &tc.in})
		if r := acc.reply(); r.Message.Content != tc.content || len(r.Message.ToolCalls) != 0 {
			t.Errorf("%q: %+v", tc.in, r.Message)
		}
	}
}
