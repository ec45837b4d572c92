package llm

import (
	"fmt"
	"strings"
)

// toolCalls answers each tool call of a reply: python runs a cell, another
// tool is called, an unknown one is told so. It says whether the question
// is done (the same code again, or stopped).
func (a *asking) toolCalls(turn int, calls []ToolCall) bool {
	tu := &a.t.Turns[turn]
	a.msgs = append(a.msgs, Message{Role: "assistant", Content: tu.Text, ToolCalls: calls})
	var images []string
	for _, tc := range calls {
		tool, ok := a.reg.lookup(tc.Function.Name)
		switch {
		case !ok:
			a.unknownTool(turn, tc)
		case tool.Name != ToolName:
			a.otherTool(turn, tool, tc)
		default:
			urls, done := a.codeCall(turn, tc)
			if done {
				return true
			}
			images = append(images, urls...)
		}
	}
	if len(images) > 0 {
		a.msgs = append(a.msgs, Message{Role: "user", Images: images,
			Content: "(rehome: the figures your code drew, as the user sees them. Do not repeat them; answer or run more code.)"})
	}
	return false
}

// unknownTool answers a call of a tool the registry does not have.
func (a *asking) unknownTool(turn int, tc ToolCall) {
	tu := &a.t.Turns[turn]
	msg := fmt.Sprintf("there is no tool %q: the tools are %s", tc.Function.Name, a.reg.names())
	tu.Tools = append(tu.Tools, ToolUse{Name: tc.Function.Name, Via: "tool_call", ToolCallID: tc.ID, Arguments: tc.Function.Arguments, Fed: msg, Error: msg})
	a.msgs = append(a.msgs, Message{Role: "tool", ToolCallID: tc.ID, Name: tc.Function.Name, Content: msg})
}

// otherTool calls a tool other than python, once for the same arguments
// and within twice the code runs' bound.
func (a *asking) otherTool(turn int, tool LoopTool, tc ToolCall) {
	tu := &a.t.Turns[turn]
	use := ToolUse{Name: tool.Name, Via: "tool_call", ToolCallID: tc.ID, Arguments: tc.Function.Arguments}
	key := tool.Name + "\x00" + normalizeCode(tc.Function.Arguments)
	switch {
	case a.ran[key]:
		use.Fed = "(you called " + tool.Name + " with these arguments already: its result is above)"
	case a.q.calls >= a.maxSteps*2:
		use.Fed = "(not run: the limit of tool calls was reached; answer from what you have)"
	default:
		a.q.calls++
		a.ran[key] = true
		use = a.l.callTool(a.ctx, a.q, tool, tc)
		for _, n := range use.Notes {
			a.note(turn, n)
		}
	}
	tu.Tools = append(tu.Tools, use)
	a.msgs = append(a.msgs, Message{Role: "tool", ToolCallID: tc.ID, Name: tool.Name, Content: use.Fed})
}

// codeCall runs the code of a python tool call as a cell and returns the
// figures to show the model; done says the question ended (the same code
// again, or stopped).
func (a *asking) codeCall(turn int, tc ToolCall) (images []string, done bool) {
	tu := &a.t.Turns[turn]
	code, perr := CodeFromArguments(tc.Function.Name, tc.Function.Arguments)
	cell := Cell{Code: code, Via: "tool_call", ToolCallID: tc.ID}
	switch {
	case perr != nil:
		cell.Fed = perr.Error()
	case a.ran[normalizeCode(code)]:
		a.sameCode(tu)
		return nil, true
	case a.cells >= a.maxSteps:
		cell.Fed = "(not run: the limit of code runs was reached)"
	default:
		a.cells++
		a.ran[normalizeCode(code)] = true
		a.l.run(a.ctx, a.t, turn, &cell)
		images = a.see(&cell)
	}
	tu.Cells = append(tu.Cells, cell)
	a.msgs = append(a.msgs, Message{Role: "tool", ToolCallID: tc.ID, Name: ToolName, Content: cell.Fed})
	if a.ctx.Err() != nil {
		return nil, a.canceled()
	}
	return images, false
}

// fencedCell runs the ```python block that ends a fenced reply; it says
// whether the question is done.
func (a *asking) fencedCell(turn int, fenced string) bool {
	tu := &a.t.Turns[turn]
	if a.ran[normalizeCode(fenced)] {
		// A block that already ran, at the end of a message: with words
		// before it the model is quoting its code in the answer; alone,
		// it is asking again — a loop.
		if prose := strings.TrimSpace(strings.Replace(tu.Text, fenced, "", 1)); len(stripFences(prose)) >= 20 {
			a.answered(tu)
			return true
		}
		a.sameCode(tu)
		return true
	}
	cell := Cell{Code: fenced, Via: "fenced"}
	a.cells++
	a.ran[normalizeCode(fenced)] = true
	a.l.run(a.ctx, a.t, turn, &cell)
	images := a.see(&cell)
	tu.Cells = append(tu.Cells, cell)
	a.msgs = append(a.msgs, Message{Role: "assistant", Content: tu.Text},
		Message{Role: "user", Images: images, Content: "Output of the code you ran:\n\n" + cell.Fed + "\n\nContinue: run more code the same way if you need to, or answer the question in words."})
	if a.ctx.Err() != nil {
		return a.canceled()
	}
	return false
}
