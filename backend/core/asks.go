package core

import (
	"context"
	"strings"
	"sync"
	"time"

	"rehome/backend/actions"

	"rehome/backend/llm"
	"rehome/backend/llm/sandboxexec"
	"rehome/sandbox"
)

// AskRequest is one question, as a face hands it over.
type AskRequest struct {
	// ConversationID continues a kept conversation ("" starts one).
	ConversationID string
	// AssistantID lends its instructions, knowledge and default model
	// (default: the conversation's assistant).
	AssistantID string
	// Files are host paths the code may read at /mnt/data. With KeepFiles
	// they add to the conversation's; else, when any are given, they are
	// the conversation's files from now on.
	Files     []string
	KeepFiles bool
	// Check vets a file the conversation and the assistant do not already
	// hold (the window: one the user gave); nil accepts every file.
	Check func(path string) (string, error)
	// Server and Model pick the model (default: the assistant's default
	// model, else the first found that calls tools).
	Server, Model string
	// KeepModel stores Model as the assistant's default.
	KeepModel bool
	MaxSteps  int
	Mode      string
	Question  string
	// Rewind takes back this many of the conversation's last questions
	// first (regenerate: 1 with the same question; edit-and-resend).
	Rewind int
	// Deadline bounds one answer of the model server (0: llm.DefaultDeadline).
	Deadline time.Duration
	// Progress is told what starting a carried model waits for.
	Progress func(msg string)
	// Confirm asks the user before an action call that needs it (the
	// window's dialog, the terminal's prompt); nil declines every such
	// call, and the model is told.
	Confirm actions.Confirm
	// Limits are what the face asks for; the rest as saved in Settings
	// (see Sessions.Limits).
	Limits sandbox.Limits
	// InlinePlots keeps plots' data: URLs in the results (the window).
	InlinePlots bool
	// Browse offers web_search and open_url whatever the assistant's
	// capabilities say (`rehome ask --browse`).
	Browse bool
	// Temporary makes a new conversation a temporary chat: no memory read
	// or saved (a continued one stays as it began).
	Temporary bool
	// Images are image files the question shows the model (vetted by
	// Check; see vision.go): refused when the model does not read images.
	Images []string
	// Settings go over the model's saved settings field by field (the
	// terminal's --temperature, --context, --system-prompt).
	Settings ModelSettings
}

// Ask is a question ready to run: the model picked, the files described,
// the session and its limits chosen. Run it once.
type Ask struct {
	Conversation  *llm.Conversation
	Server        llm.Server
	Model         string
	FromAssistant bool           // Model is the assistant's default model
	KeptModel     bool           // Model was stored as the assistant's default
	Notes         []string       // about the files (truncated, unreadable…)
	Fit           string         // how Model fits this machine ("" unknown)
	Fresh         bool           // a new Python session for a conversation with cells
	Limits        sandbox.Limits // each cell's
	// Settings are the model's, as applied: saved, with the face's over
	// them. Context is the context a carried model's server runs with
	// (its -c; 0 for a served model, whose server decides).
	Settings ModelSettings
	Context  int

	asks     *Asks
	question string
	loop     *llm.Loop
	conn     *Connection // the model server; a carried model's lease
}

// Asks answers questions in words the same way for every face: the
// conversation and the assistant's instructions, knowledge and default
// model, a model server picked, the code run in one session per
// conversation under the saved limits, each cell's record kept, the
// conversation saved.
type Asks struct {
	c        *Core
	mu       sync.Mutex
	sessions map[string]*askSession // by conversation
	// answering are the conversations whose question runs now: their
	// session never gives way to another's.
	answering map[string]bool
}

// askSession is a conversation's session and what it was started with.
type askSession struct {
	x     *sandboxexec.Session
	files string // the host paths, joined: other files need another session
}

// Asks is the ask service.
func (c *Core) Asks() *Asks { return c.askSvc }

// Prepare readies req: ctx bounds the model server's discovery.
func (s *Asks) Prepare(ctx context.Context, req AskRequest) (*Ask, error) {
	if err := s.c.Ready(); err != nil {
		return nil, err
	}
	q := strings.TrimSpace(req.Question)
	if q == "" {
		return nil, ErrNoQuestion
	}
	conv, err := s.conversation(&req)
	if err != nil {
		return nil, err
	}
	conv.Temporary = conv.Temporary || (req.Temporary && len(conv.Exchanges) == 0)
	a := &Ask{Conversation: conv, asks: s, question: q}
	as, err := s.lendAssistant(a, &req)
	if err != nil {
		return nil, err
	}
	if err := a.mountFiles(req, as); err != nil {
		return nil, err
	}
	imgs, names, err := questionImages(req.Images, req.Check) // vision.go
	if err != nil {
		return nil, err
	}
	if err := s.connect(ctx, a, req, as.suggested); err != nil {
		return nil, err
	}
	prepared := false
	defer func() {
		if !prepared {
			a.conn.Release() // a question that cannot be asked holds no server
		}
	}()
	lim, e, err := s.c.sessionEngine(ctx, req.Limits)
	if err != nil {
		return nil, err
	}
	a.Limits = lim
	ex, fresh := s.session(conv, e, a.Limits, req)
	a.Fresh = fresh && conv.HasCells()
	// The assistant's knowledge is its file_search tool; the context length
	// the server reports bounds what the model is given (and says what was
	// cut).
	client := a.conn.Client
	client.Deadline = req.Deadline
	tools, err := s.tools(ctx, a, req)
	if err != nil {
		return nil, err
	}
	srv, model := a.Server, a.Model
	if len(imgs) > 0 && !srv.ReadsImages(model) { // vision.go: never sent to a model that cannot read them
		carried, _ := s.c.LocalModels().List(ctx)
		return nil, &NoVisionError{Model: model, Readers: imageReaders(ctx, carried)}
	}
	window := client.ContextLength(ctx, model)
	if t, notes, ok := s.c.Memory().Tool(conv, window.Tokens); ok { // the memory tool (memory.go)
		tools, a.Notes = append(tools, t), append(a.Notes, notes...)
	}
	tools = append(tools, s.c.Canvas().Tools(conv)...) // the canvas tools (canvas.go)
	a.loop = &llm.Loop{Client: client, Model: model, Instructions: withSystemPrompt(as.instructions, a.Settings.SystemPrompt), Tools: tools, Context: window,
		Files: conv.Files, Exec: ex, Vision: srv.ReadsImages(model), MaxSteps: req.MaxSteps, Mode: req.Mode, History: conv.History(),
		Images: imgs, ImageNames: names, Temperature: a.Settings.Temperature}
	prepared = true
	return a, nil
}

// Run asks the question, with each step to onEvent (may be nil), and adds
// the answer to the conversation; Keep saves it. ctx ends the answer.
func (a *Ask) Run(ctx context.Context, onEvent func(llm.Event)) *llm.Transcript {
	defer a.conn.Release() // a carried model stops after its idle time
	id := a.Conversation.ID
	a.asks.mu.Lock()
	if a.asks.answering == nil {
		a.asks.answering = map[string]bool{}
	}
	a.asks.answering[id] = true
	a.asks.mu.Unlock()
	defer func() {
		a.asks.mu.Lock()
		delete(a.asks.answering, id)
		a.asks.mu.Unlock()
	}()
	a.loop.OnEvent = onEvent
	// What a cell prints goes to the face as it comes.
	if x, ok := a.loop.Exec.(*sandboxexec.Session); ok && onEvent != nil {
		x.Progress = func(p sandbox.Progress) {
			if p.Stage == "output" {
				onEvent(llm.Event{Type: "output", Text: p.Text, Stream: p.Stream})
			}
		}
	}
	t := a.loop.Ask(ctx, a.question)
	if used := a.Settings; !used.IsZero() || a.Context > 0 {
		used.Context = a.Context // a served model's server decides its own
		t.Settings = &used
	}
	a.Conversation.Add(t)
	a.asks.c.log.Info("ask", "conversation", a.Conversation.ID, "model", a.Model, "stopped", t.Stopped, "cells", len(t.Cells()), "ms", t.DurationMS)
	return t
}

// Keep saves the conversation.
func (a *Ask) Keep() error { return llm.SaveConversation(a.asks.c.Store(), a.Conversation) }

// session returns the session executor of conv, started before with the
// same files, or a new one (fresh) — replacing one started with other
// files. It is one of the Core's open sessions (sessions_open.go): at the
// bound of sessions the one used longest ago gives way, a face's or a
// conversation's.
func (s *Asks) session(conv *llm.Conversation, e *sandbox.Engine, lim sandbox.Limits, req AskRequest) (*sandboxexec.Session, bool) {
	key := strings.Join(llm.HostPaths(conv.Files), "\x00")
	ckey := conversationKey(conv.ID)
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = map[string]*askSession{}
	}
	old := s.sessions[conv.ID]
	if old != nil && old.files == key {
		old.x.Request.Limits = lim // the limits saved since apply to the next start
		s.mu.Unlock()
		s.c.open.touch(ckey)
		return old.x, false
	}
	sessions := s.c.Sessions()
	x := &sandboxexec.Session{Engine: e, InlinePlots: req.InlinePlots,
		Request: sandbox.SessionRequest{InputPaths: llm.HostPaths(conv.Files), Limits: lim},
		DirFor:  sessions.Dir,
		Earlier: conv.HasCells(),
		MakeRoom: func() bool {
			// At the limit of sessions: the session used longest ago gives way.
			return sessions.Evict(ckey)
		},
		Done: func(code string, res *sandbox.CellResult) {
			sessions.Keep(code, res, "ask") // a record not kept is logged
		}}
	as := &askSession{x: x, files: key}
	s.sessions[conv.ID] = as
	s.mu.Unlock()
	s.c.open.put(ckey, &openSession{
		mayGo: func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return x.Started() && !s.answering[conv.ID]
		},
		stop: func(ctx context.Context) error { return s.forget(conv.ID, as).x.Close(ctx) },
	})
	if old != nil {
		old.x.Close(context.Background())
	}
	return x, true
}

// forget drops as, conversationID's session, from the conversations'.
func (s *Asks) forget(conversationID string, as *askSession) *askSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[conversationID] == as {
		delete(s.sessions, conversationID)
	}
	return as
}

// Close ends a conversation's session, if it has one.
func (s *Asks) Close(ctx context.Context, conversationID string) error {
	s.mu.Lock()
	x := s.sessions[conversationID]
	delete(s.sessions, conversationID)
	s.mu.Unlock()
	if x == nil {
		return nil
	}
	s.c.open.drop(conversationKey(conversationID), nil)
	return x.x.Close(ctx)
}

// SessionID is the id of the session a conversation's cells run in (""
// before its first cell has started one).
func (s *Asks) SessionID(conversationID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.sessions[conversationID]; x != nil {
		return x.x.Info().ID
	}
	return ""
}

// CloseAll ends every conversation's session (on exit).
func (s *Asks) CloseAll() {
	for id, x := range takeAll(&s.mu, &s.sessions) {
		s.c.open.drop(conversationKey(id), nil)
		x.x.Close(context.Background())
	}
}

// uniq drops repeated paths, keeping the first.
// takenNames are the names of tools and python's, which an MCP server's
// tool may not take.
func takenNames(tools []llm.LoopTool) map[string]bool {
	taken := map[string]bool{llm.ToolName: true}
	for _, t := range tools {
		taken[t.Name] = true
	}
	return taken
}

func uniq(paths []string) []string {
	seen := map[string]bool{}
	out := paths[:0:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
