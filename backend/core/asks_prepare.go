package core

import (
	"context"
	"fmt"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/models"
)

// What Prepare gathers for a question: its conversation, what its
// assistant lends, its files, its model server and its tools.

// conversation is the one req continues, rewound as asked (its
// assistant is req's unless req names one), or a new one.
func (s *Asks) conversation(req *AskRequest) (*llm.Conversation, error) {
	if req.ConversationID == "" {
		return llm.NewConversation(), nil
	}
	c, err := llm.GetConversation(s.c.Store(), req.ConversationID)
	if err != nil {
		return nil, err
	}
	if err := c.Rewind(req.Rewind); err != nil {
		return nil, err
	}
	if req.AssistantID == "" {
		req.AssistantID = c.AssistantID
	}
	if req.AssistantID == "" && c.GizmoID != "" {
		req.AssistantID, _ = s.c.Conversations().assistantOf(c.GizmoID) // an imported GPT's chat: its assistant, once imported
	}
	return c, nil
}

// lent is what the assistant lends a question.
type lent struct {
	instructions string
	suggested    string   // its default model
	knowledge    []string // rehome's own copies of its knowledge
	refused      []string // notes on knowledge not mounted
	stale        map[string]bool
}

// lendAssistant resolves req's assistant (an id or a name), keeps --model
// as its default where asked, and takes its instructions, default model
// and knowledge; no assistant lends nothing.
func (s *Asks) lendAssistant(a *Ask, req *AskRequest) (lent, error) {
	l := lent{stale: map[string]bool{}} // the conversation's copies of knowledge references
	if req.AssistantID == "" {
		return l, nil
	}
	as, err := s.c.ResolveAssistant(req.AssistantID)
	if err != nil {
		return l, err
	}
	req.AssistantID = as.ID
	if req.KeepModel && req.Model != "" {
		if as, err = s.c.Assistants().Edit(as.ID, func(x *assistant.Assistant) error {
			x.Model = req.Model
			return nil
		}); err != nil {
			return l, err
		}
		a.KeptModel = true
	}
	l.instructions = as.Instructions
	if req.Model == "" && as.Model != "" {
		req.Model, a.FromAssistant = as.Model, true
	}
	l.suggested = as.Model
	a.Conversation.AssistantID, a.Conversation.AssistantName = as.ID, as.Name
	l.knowledge, l.refused = s.c.Assistants().Library().Mounts(as)
	for _, k := range as.Knowledge {
		l.stale[k.Path] = k.Path != ""
	}
	return l, nil
}

// mountFiles sets the conversation's files: the ones it had (with
// KeepFiles, or when req gives none), req's, and the assistant's
// knowledge, each described for the model. Files given before — the
// conversation's — are known; any other is vetted by the face. The
// assistant's knowledge is never taken from a path: only rehome's own
// copies are mounted (an import may not choose host files), checked each
// time; the others are refused with a note.
func (a *Ask) mountFiles(req AskRequest, as lent) error {
	conv := a.Conversation
	known := map[string]bool{}
	for _, f := range conv.Files {
		if !as.stale[f.HostPath] {
			known[f.HostPath] = true
		}
	}
	var files []string
	if req.KeepFiles || len(req.Files) == 0 {
		for _, p := range llm.HostPaths(conv.Files) {
			if !as.stale[p] {
				files = append(files, p)
			}
		}
	}
	for _, p := range req.Files {
		if as.stale[p] {
			continue // the assistant's knowledge, added below if it is rehome's copy
		}
		if !known[p] && req.Check != nil {
			var err error
			if p, err = req.Check(p); err != nil {
				return err
			}
		}
		files = append(files, p)
	}
	// Every file is at /mnt/data, and the assistant's knowledge too.
	infos, notes, err := llm.DescribeFiles(uniq(append(files, as.knowledge...)))
	if err != nil {
		return err
	}
	conv.Files, a.Notes = infos, append(as.refused, notes...)
	return nil
}

// connect picks the model server: the one named, else a carried model
// rehome starts itself (by its name, or the first when no server runs),
// else one running here; the choice is remembered, overall and for the
// assistant, and how the model fits this machine noted.
func (s *Asks) connect(ctx context.Context, a *Ask, req AskRequest, suggested string) error {
	st := s.c.Store()
	// The server named, else a carried model rehome starts itself (by its
	// name, or the first when no server runs), else one running here.
	// A carried model's server starts with the model's context length.
	ctxWant := s.c.ModelSettings().forAsk(req.Model, req.Settings).Context
	conn, err := s.c.LocalModels().PickServer(ctx, req.Server, req.Model, llm.SuggestedModel(st, req.AssistantID, suggested), ctxWant, req.Progress)
	if err != nil {
		if a.FromAssistant {
			err = fmt.Errorf("%w (%s is the assistant's default model)", err, req.Model)
		}
		return err
	}
	a.conn = conn
	srv, model := conn.Server, conn.Model
	a.Server, a.Model = srv, model
	a.Settings = s.c.ModelSettings().forAsk(model, req.Settings)
	if conn.Lease != nil {
		a.Context = conn.Lease.Plan.Context
	}
	a.Conversation.Server, a.Conversation.Model = srv.BaseURL, model
	if err := llm.RememberChoice(st, req.AssistantID, llm.ServerChoice{Server: srv.BaseURL, Model: model}); err != nil {
		s.c.log.Warn("remember the model chosen", "err", err)
	}
	if rep, err := s.c.Hardware().Report(ctx); err == nil {
		a.Fit = llm.FitNote(model, models.MachineFrom(rep))
	}
	return nil
}

// tools are the question's tools beside python: the assistant's
// knowledge (file_search), its OpenAPI actions and MCP servers' tools,
// and browsing.
func (s *Asks) tools(ctx context.Context, a *Ask, req AskRequest) ([]llm.LoopTool, error) {
	conv := a.Conversation
	var tools []llm.LoopTool
	if t, ok := s.c.Knowledge().Tool(conv.AssistantID); ok {
		tools = append(tools, t)
	}
	// The assistant's OpenAPI actions, each a tool rehome calls itself.
	if conv.AssistantID != "" {
		acts, notes, err := s.c.Actions().Tools(conv.AssistantID, req.Confirm)
		if err != nil {
			return nil, err
		}
		tools = append(tools, acts...)
		a.Notes = append(a.Notes, notes...)
		// The MCP servers' tools, after every built-in name is taken.
		mcps, notes := s.c.MCPServers().Tools(ctx, conv.AssistantID, conv.AssistantName, req.Confirm, takenNames(tools))
		tools = append(tools, mcps...)
		a.Notes = append(a.Notes, notes...)
	}
	tools, notes, err := s.c.Browse().AddTools(tools, a.Notes, conv.AssistantID, req.Browse) // browse_tools.go: web_search and open_url
	if err != nil {
		return nil, err
	}
	a.Notes = notes
	return tools, nil
}
