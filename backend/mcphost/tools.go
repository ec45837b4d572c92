package mcphost

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/actions"
	"rehome/backend/llm"
)

// Rule is the confirmation a tool's calls need, by ChatGPT's rule keyed
// on the tool's annotations (the server's own word): read-only needs
// none; destructive asks every call; anything else, with no annotation
// too, asks and offers "Always allow".
func Rule(t *mcp.Tool) actions.Rule {
	a := t.Annotations
	switch {
	case a == nil:
		return actions.RuleAsk
	case a.ReadOnlyHint:
		return actions.RuleNone
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return actions.RuleEvery
	}
	return actions.RuleAsk
}

var notToolRune = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// ToolName is the loop's name of server's tool: the server's name, an
// underscore and the tool's, so that no server's tool takes the name of
// a built-in one (python, file_search) or of an action.
func ToolName(server, tool string) string {
	n := server + "_" + notToolRune.ReplaceAllString(tool, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// Use is what the loop tools of a connection need from the face: the
// assistant's name, the user's answer, and "Always allow" kept.
type Use struct {
	Assistant string
	Confirm   actions.Confirm
	// Allow keeps "Always allow" for a tool (may be nil).
	Allow func(tool string) error
}

// LoopTools are c's tools as tools of the ask loop; taken are the names
// already used (left out if clashing, said in the notes).
func (c *Conn) LoopTools(ctx context.Context, u Use, taken map[string]bool) ([]llm.LoopTool, []string, error) {
	tools, err := c.Tools(ctx)
	if err != nil {
		return nil, nil, err
	}
	notes := append([]string{}, c.Notes...)
	var out []llm.LoopTool
	for _, t := range tools {
		name := ToolName(c.srv.Name, t.Name)
		if taken[name] {
			notes = append(notes, fmt.Sprintf("%s's tool %s is left out: another tool has the name %s", c.srv.Name, t.Name, name))
			continue
		}
		taken[name] = true
		t := t
		params, _ := t.InputSchema.(map[string]any)
		if params == nil {
			params = map[string]any{"type": "object"}
		}
		rule := Rule(t)
		h := &llm.ToolHints{Title: t.Name + " (" + c.srv.Name + ")", ReadOnly: rule == actions.RuleNone, Destructive: rule == actions.RuleEvery, OpenWorld: true}
		out = append(out, llm.LoopTool{Name: name, Description: oneLine(t.Description, 1000) + " (an MCP tool of " + c.srv.Name + ")", Parameters: params, Hints: h,
			Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
				return c.call(ctx, u, t, rule, in.Arguments)
			}})
	}
	return out, notes, nil
}

func (c *Conn) call(ctx context.Context, u Use, t *mcp.Tool, rule actions.Rule, args string) llm.ToolOutput {
	if rule != actions.RuleNone && !(rule == actions.RuleAsk && slices.Contains(c.srv.AlwaysAllow, t.Name)) {
		ask := actions.Ask{Assistant: u.Assistant, Action: c.srv.Name, Operation: t.Name, Method: "MCP", Host: c.srv.Name, Arguments: args, AlwaysOffered: rule == actions.RuleAsk}
		d := actions.Deny
		var err error
		if u.Confirm != nil {
			d, err = u.Confirm(ctx, ask)
		}
		if err != nil || d == actions.Deny {
			why := "the user declined it"
			if u.Confirm == nil {
				why = "it needs your confirmation and nobody could be asked (give --yes at a terminal, or ask from the window)"
			} else if err != nil {
				why = err.Error()
			}
			msg := fmt.Sprintf("%s: %s", ErrRefused, why)
			return llm.ToolOutput{Text: "(not called: " + msg + ". Do not call it again unless the user asks; answer without it.)", Error: msg}
		}
		if d == actions.AllowAlways && rule == actions.RuleAsk && u.Allow != nil {
			if err := u.Allow(t.Name); err == nil {
				c.srv.AlwaysAllow = append(c.srv.AlwaysAllow, t.Name)
			}
		}
	}
	text, isErr, err := c.Call(ctx, t.Name, []byte(args))
	if err != nil {
		return llm.ToolOutput{Text: "(the call failed: " + err.Error() + ")", Error: err.Error()}
	}
	out := llm.ToolOutput{Text: text}
	if isErr {
		out.Error = oneLine(text, 300)
		if strings.TrimSpace(out.Error) == "" {
			out.Error = "the tool said it failed"
		}
	}
	return out
}
