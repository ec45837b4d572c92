package mcpserve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/actions"
	"rehome/backend/core"
)

// Options say what Serve offers.
type Options struct {
	// MCP is the core's service; Assistants name the assistants to offer
	// (ids, names or unique prefixes).
	MCP        *core.MCP
	Assistants []string
	Version    string
	Log        *slog.Logger
	// Confirm asks the user about a consequential call when the client
	// offers no elicitation (a terminal prompt beside --http); nil: such
	// a call is declined, in words.
	Confirm actions.Confirm
}

// MaxMessage is the most one message from a client may hold (a file of
// MaxMCPUpload sent as base64, with room for the rest of the call).
const MaxMessage = core.MaxMCPUpload*4/3 + 1<<20

// Server is rehome's MCP server over the assistants of Options.
type Server struct {
	srv  *mcp.Server
	opts Options
	log  *slog.Logger
	// Notes say what was left out, in words (a tool whose name clashes).
	Notes []string

	mu       sync.Mutex
	ending   sync.WaitGroup // ends under way (a client's disconnect ends its session on the SDK's goroutine)
	sessions map[*mcp.ServerSession]*session
}

// New builds the server: every assistant's tools, prompt and resources.
func New(opts Options) (*Server, error) {
	if len(opts.Assistants) == 0 {
		return nil, fmt.Errorf("%w: name one with --assistant (see `rehome assistants list`)", ErrNoAssistant)
	}
	s := &Server{opts: opts, log: opts.Log, sessions: map[*mcp.ServerSession]*session{}}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var entries []*entry
	for _, ref := range opts.Assistants {
		a, err := opts.MCP.Assistant(ref, s.confirm)
		if err != nil {
			return nil, err
		}
		entries = append(entries, &entry{a: a})
	}
	prefixes(entries)
	instr := make([]string, 0, len(entries))
	for _, e := range entries {
		instr = append(instr, fmt.Sprintf("%s: %s", e.a.Name, oneLine(e.a.Description)))
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "rehome", Title: "rehome", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Assistants moved to this machine with rehome; each has its own prompt with its instructions. " + strings.Join(instr, "; "),
		Logger:       s.log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	seen := map[string]string{}
	for _, e := range entries {
		s.addAssistant(e, seen)
		s.Notes = append(s.Notes, e.a.Notes...)
	}
	return s, nil
}

// entry is one assistant served; prefix starts its tools' names when more
// than one is served ("" for one).
type entry struct {
	a      *core.MCPAssistant
	prefix string
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// prefixes names each assistant's tools apart when several are served.
func prefixes(es []*entry) {
	if len(es) < 2 {
		return
	}
	used := map[string]int{}
	for _, e := range es {
		p := strings.Trim(notSlug.ReplaceAllString(strings.ToLower(e.a.Name), "_"), "_")
		if len(p) > 24 {
			p = strings.TrimRight(p[:24], "_")
		}
		if p == "" {
			p = "assistant"
		}
		used[p]++
		if n := used[p]; n > 1 {
			p = fmt.Sprintf("%s%d", p, n)
		}
		e.prefix = p + "_"
	}
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

func (s *Server) addAssistant(e *entry, seen map[string]string) {
	add := func(t *mcp.Tool, h mcp.ToolHandler) {
		if other, ok := seen[t.Name]; ok || !toolName.MatchString(t.Name) {
			why := "its name is not a valid MCP tool name"
			if ok {
				why = "another tool (" + other + ") has that name"
			}
			s.Notes = append(s.Notes, fmt.Sprintf("the tool %s of %s is not offered: %s", t.Name, e.a.Name, why))
			return
		}
		seen[t.Name] = e.a.Name
		s.srv.AddTool(t, h)
	}
	for _, t := range e.a.Tools {
		add(loopTool(e.prefix, t), s.callLoopTool(e, t))
	}
	add(pythonTool(e), s.callPython(e))
	add(uploadTool(e), s.callUpload(e))
	s.addPrompt(e)
	s.addResources(e)
}

// annotations are t's MCP annotations; a tool with no hints says nothing
// (MCP's defaults: it may change anything).
func annotations(t core.LoopTool) *mcp.ToolAnnotations {
	if t.Hints == nil {
		return nil
	}
	h := t.Hints
	return &mcp.ToolAnnotations{Title: h.Title, ReadOnlyHint: h.ReadOnly, DestructiveHint: &h.Destructive, OpenWorldHint: &h.OpenWorld}
}

func loopTool(prefix string, t core.LoopTool) *mcp.Tool {
	schema := t.Parameters
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	return &mcp.Tool{Name: prefix + t.Name, Description: t.Description, InputSchema: schema, Annotations: annotations(t)}
}

// callLoopTool runs one of the loop's tools for the client. A call that
// needs the user's confirmation is asked through the client when it can
// elicit (MCP's multi round-trip: the first round returns the question,
// the second carries the answer; the SDK asks older clients directly).
func (s *Server) callLoopTool(e *entry, t core.LoopTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := "{}"
		if req.Params != nil && len(req.Params.Arguments) > 0 {
			args = string(req.Params.Arguments)
		}
		caps := req.ClientCapabilities()
		slot := &confirmSlot{elicits: caps != nil && caps.Elicitation != nil, assistant: e.a.Name}
		if r, ok := req.Params.InputResponses[confirmInput].(*mcp.ElicitResult); ok {
			d := decision(r)
			slot.answer = &d
		}
		out := t.Call(context.WithValue(ctx, slotKey{}, slot), core.ToolInput{Arguments: args, FirstCitation: 1})
		if slot.pending != nil && slot.answer == nil {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{confirmInput: slot.pending}}, nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Text}}, IsError: out.Error != ""}
		for _, n := range out.Notes {
			res.Content = append(res.Content, &mcp.TextContent{Text: "Note: " + n})
		}
		for _, c := range out.Citations {
			res.Content = append(res.Content, citationLink(e.a, c))
		}
		s.log.Info("mcp tool call", "assistant", e.a.ID, "tool", t.Name, "error", out.Error)
		return res, nil
	}
}

// confirmInput names the confirmation among a call's input requests.
const confirmInput = "confirm"

// confirmSlot is one tool call's confirmation: the client's answer once
// it came, or the question to send it.
type confirmSlot struct {
	elicits   bool
	assistant string
	answer    *actions.Decision
	pending   *mcp.ElicitParams
}

type slotKey struct{}

// confirm answers an action call that needs the user: the client's
// answer (elicitation) when it can ask, else Options.Confirm, else the
// call is declined and the client told why.
func (s *Server) confirm(ctx context.Context, a actions.Ask) (actions.Decision, error) {
	slot, _ := ctx.Value(slotKey{}).(*confirmSlot)
	switch {
	case slot != nil && slot.answer != nil:
		return *slot.answer, nil
	case slot != nil && slot.elicits:
		if a.Assistant == "" {
			a.Assistant = slot.assistant
		}
		slot.pending = elicitation(a)
		return actions.Deny, errAsking
	case s.opts.Confirm != nil:
		return s.opts.Confirm(ctx, a)
	}
	return actions.Deny, fmt.Errorf("%s %s needs your confirmation, and this MCP client cannot ask you (no elicitation): call it from rehome's window or `rehome ask`, or start `rehome mcp serve --http` in a terminal, which asks there", a.Method, a.Operation)
}

func elicitation(a actions.Ask) *mcp.ElicitParams {
	choices := []string{string(actions.AllowOnce), string(actions.Deny)}
	if a.AlwaysOffered {
		choices = []string{string(actions.AllowOnce), string(actions.AllowAlways), string(actions.Deny)}
	}
	return &mcp.ElicitParams{Mode: "form",
		Message: fmt.Sprintf("%s wants to call %s (%s %s) with %s. Allow it?", a.Assistant, a.Operation, a.Method, a.Host, a.Arguments),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"decision"},
			"properties": map[string]any{"decision": map[string]any{"type": "string", "title": "Your answer", "enum": choices}}}}
}

// decision is the user's answer in r: anything but an accepted allow is
// a deny ("always" is kept only where it was offered, by the action).
func decision(r *mcp.ElicitResult) actions.Decision {
	if r == nil || r.Action != "accept" {
		return actions.Deny
	}
	d, _ := r.Content["decision"].(string)
	switch actions.Decision(d) {
	case actions.AllowOnce, actions.AllowAlways:
		return actions.Decision(d)
	}
	return actions.Deny
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Handle is the handshake and the calls of one client over r and w (the
// stdio transport: newline-delimited JSON-RPC), until the client goes or
// ctx ends.
func (s *Server) Handle(ctx context.Context, r io.Reader, w io.Writer) error {
	defer s.closeAll()
	t := &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: MaxMessage}
	err := s.srv.Run(ctx, t)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
