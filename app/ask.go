package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/llm/sandboxexec"
	"rehome/backend/models"
	"rehome/backend/store"
	"rehome/sandbox"
)

// Ask in words: a question goes to a local model, whose code runs in the
// sandbox, until it answers. Each step goes out as an "ask:event" event
// (AskEvent) while Ask runs; StopAsk ends it.

// AskRequest is one question from the conversation screen.
type AskRequest struct {
	// ConversationID continues a kept conversation ("" starts one).
	ConversationID string   `json:"conversation_id"`
	AssistantID    string   `json:"assistant_id"`
	Files          []string `json:"files"` // host paths (dropped or uploaded)
	Server         string   `json:"server"`
	Model          string   `json:"model"`
	MaxSteps       int      `json:"max_steps"`
	Mode           string   `json:"mode"`
	Question       string   `json:"question"`
}

// AskEvent is a step of a question, for the screen.
type AskEvent struct {
	ConversationID string `json:"conversation_id"`
	llm.Event
}

type askHolder struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	// execs is the session of each conversation open in this window: its
	// cells share one Python kernel until the window closes, the
	// conversation is deleted, or its files change.
	execs map[string]*askSession
	// deleted are conversations deleted while answering: not saved again.
	deleted map[string]bool
}

// askSession is a conversation's session and what it was started with.
type askSession struct {
	x     *sandboxexec.Session
	files string // the host paths, joined: other files need another session
	used  time.Time
}

// LLMStatus lists the model servers (on this machine, or the one at
// server), their models and which call tools.
func (a *App) LLMStatus(server string) ([]llm.Server, error) {
	ctx := a.ctx
	servers, err := llm.Discover(ctx, llm.DiscoverOptions{URL: server, ToolsHint: llm.CatalogToolsHint})
	if servers == nil {
		servers = []llm.Server{}
	}
	if rep, herr := a.core.Hardware().Report(ctx); herr == nil {
		llm.AddFit(servers, models.MachineFrom(rep))
	}
	return servers, err
}

// LLMHint says how to start a model server, naming the model the latest
// audit chose.
func (a *App) LLMHint() string { return llm.StartHint(a.suggestedModel("")) }

// LLMHintFor says how to start a model server for an assistant: the
// `ollama pull` of its default model, else of the model its audit chose.
func (a *App) LLMHintFor(assistantID string) string {
	return llm.StartHint(a.suggestedModel(assistantID))
}

func (a *App) suggestedModel(assistantID string) string {
	if a.core.Store() == nil {
		return ""
	}
	def := ""
	if assistantID != "" {
		if as, err := a.core.Assistants().Get(assistantID); err == nil {
			def = as.Model
		}
	}
	return llm.SuggestedModel(a.core.Store(), assistantID, def)
}

// SetAssistantModel stores model as the assistant's default ("" lets
// rehome choose), and returns the assistant.
func (a *App) SetAssistantModel(id, model string) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Edit(id, func(as *assistant.Assistant) error {
		as.Model = model
		return nil
	})
}

// Ask runs one question through the loop and returns the conversation
// with it added (kept in the database). It returns when the model has
// answered, the bound is reached, or StopAsk is called.
func (a *App) Ask(req AskRequest) (llm.Conversation, error) {
	if err := a.ready(); err != nil {
		return llm.Conversation{}, err
	}
	q := strings.TrimSpace(req.Question)
	if q == "" {
		return llm.Conversation{}, errors.New("type a question first")
	}
	conv := llm.NewConversation()
	if req.ConversationID != "" {
		c, err := llm.GetConversation(a.core.Store(), req.ConversationID)
		if err != nil {
			return llm.Conversation{}, err
		}
		conv = c
		if req.AssistantID == "" {
			req.AssistantID = c.AssistantID
		}
	}
	// Files given before — the conversation's, the assistant's knowledge —
	// are known; any other must be one the user gave (uploaded, picked,
	// dropped), as with RunCode.
	known := map[string]bool{}
	for _, f := range conv.Files {
		known[f.HostPath] = true
	}
	instructions := ""
	var knowledge []string
	if req.AssistantID != "" {
		as, err := a.core.Assistants().Get(req.AssistantID)
		if err != nil {
			return llm.Conversation{}, err
		}
		instructions = as.Instructions
		if req.Model == "" {
			req.Model = as.Model // the assistant's default model
		}
		conv.AssistantID, conv.AssistantName = as.ID, as.Name
		for _, k := range as.Knowledge {
			if k.Path != "" && fileExists(k.Path) {
				knowledge = append(knowledge, k.Path)
				known[k.Path] = true
			}
		}
	}
	// The files the screen shows are the conversation's (removing one
	// removes it from /mnt/data); none given keeps the conversation's.
	var files []string
	for _, p := range req.Files {
		if !known[p] {
			var err error
			if p, err = a.readable(p); err != nil {
				return llm.Conversation{}, err
			}
		}
		files = append(files, p)
	}
	if len(req.Files) == 0 {
		files = llm.HostPaths(conv.Files)
	}
	// Every file is at /mnt/data, and the assistant's knowledge too.
	infos, notes, err := llm.DescribeFiles(append(files, knowledge...))
	if err != nil {
		return llm.Conversation{}, err
	}
	conv.Files = infos

	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	a.asks.mu.Lock()
	if a.asks.cancels == nil {
		a.asks.cancels = map[string]context.CancelFunc{}
	}
	if _, busy := a.asks.cancels[conv.ID]; busy {
		a.asks.mu.Unlock()
		return llm.Conversation{}, errors.New("this conversation is still answering: wait, or press Stop")
	}
	a.asks.cancels[conv.ID] = cancel
	a.asks.mu.Unlock()
	defer func() {
		a.asks.mu.Lock()
		delete(a.asks.cancels, conv.ID)
		a.asks.mu.Unlock()
	}()

	conn, err := a.core.LocalModels().PickServer(ctx, req.Server, req.Model, a.suggestedModel(req.AssistantID), func(msg string) {
		a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: llm.Event{Type: "note", Text: msg}})
	})
	if err != nil {
		return llm.Conversation{}, uiError(err)
	}
	defer conn.Release()
	srv, model := conn.Server, conn.Model
	conv.Server, conv.Model = srv.BaseURL, model
	e, err := a.engine()
	if err != nil {
		return llm.Conversation{}, err
	}
	lim, err := a.RunLimits()
	if err != nil {
		return llm.Conversation{}, err
	}
	ex, fresh := a.askSession(conv, e, lim)
	loop := &llm.Loop{Client: conn.Client, Model: model, Instructions: instructions,
		Files: conv.Files, Exec: ex, Vision: srv.ReadsImages(model), MaxSteps: req.MaxSteps, Mode: req.Mode, History: conv.History(),
		OnEvent: func(ev llm.Event) { a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: ev}) }}
	a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: llm.Event{Type: "start", Text: fmt.Sprintf("%s at %s", model, srv.BaseURL)}})
	for _, n := range notes {
		a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: llm.Event{Type: "note", Text: n}})
	}
	if fresh && conv.HasCells() {
		a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: llm.Event{Type: "note",
			Text: "A new Python session: variables from this conversation's earlier cells are gone (the window was closed, or the files changed). The model is told, and re-runs what it needs."}})
	}
	t := loop.Ask(ctx, q)
	conv.Add(t)
	a.asks.mu.Lock()
	gone := a.asks.deleted[conv.ID]
	delete(a.asks.deleted, conv.ID)
	a.asks.mu.Unlock()
	if gone {
		return *conv, errors.New("the conversation was deleted while it answered")
	}
	if err := llm.SaveConversation(a.core.Store(), conv); err != nil {
		return *conv, err
	}
	a.log.Info("ask", "conversation", conv.ID, "model", model, "stopped", t.Stopped, "cells", len(t.Cells()), "ms", t.DurationMS)
	return *conv, nil
}

// askSession returns the session executor of conv, started before in
// this window with the same files, or a new one (fresh) — replacing one
// started with other files.
func (a *App) askSession(conv *llm.Conversation, e *sandbox.Engine, lim sandbox.Limits) (*sandboxexec.Session, bool) {
	key := strings.Join(llm.HostPaths(conv.Files), "\x00")
	h := &a.asks
	h.mu.Lock()
	if h.execs == nil {
		h.execs = map[string]*askSession{}
	}
	old := h.execs[conv.ID]
	if old != nil && old.files == key {
		old.used = time.Now()
		h.mu.Unlock()
		return old.x, false
	}
	x := &sandboxexec.Session{Engine: e, InlinePlots: true,
		Request: sandbox.SessionRequest{InputPaths: llm.HostPaths(conv.Files), Limits: lim},
		DirFor:  func(id string) string { return filepath.Join(a.cfg.DataDir, SessionsDir, id) },
		Earlier: conv.HasCells(),
		MakeRoom: func() bool {
			// At the limit of sessions: this window's conversation used
			// longest ago gives way, else a Code Interpreter file's.
			return a.evictAskSession(conv.ID) || a.evictSession()
		},
		Done: func(code string, res *sandbox.CellResult) {
			req := sandbox.RunRequest{Code: code}
			if res.Input != nil {
				req.InputPath = res.Input.HostPath
			}
			if err := a.core.Runs().Keep(sandbox.NewRecord(req, &res.Result, "ask")); err != nil {
				a.log.Error("store cell", "session", res.SessionID, "err", err)
			}
		}}
	h.execs[conv.ID] = &askSession{x: x, files: key, used: time.Now()}
	h.mu.Unlock()
	if old != nil {
		old.x.Close(context.Background())
	}
	return x, true
}

// evictAskSession stops the session of the conversation (other than
// keep, and not answering) used longest ago; false when there is none.
func (a *App) evictAskSession(keep string) bool {
	h := &a.asks
	h.mu.Lock()
	var oldest string
	for id, s := range h.execs {
		if _, busy := h.cancels[id]; busy || id == keep || !s.x.Started() {
			continue
		}
		if oldest == "" || s.used.Before(h.execs[oldest].used) {
			oldest = id
		}
	}
	s := h.execs[oldest]
	delete(h.execs, oldest)
	h.mu.Unlock()
	if s == nil {
		return false
	}
	a.log.Info("conversation's session stopped for a newer one", "conversation", oldest)
	s.x.Close(context.Background())
	return true
}

// closeAskSession ends a conversation's session, if it has one.
func (a *App) closeAskSession(id string) {
	h := &a.asks
	h.mu.Lock()
	s := h.execs[id]
	delete(h.execs, id)
	h.mu.Unlock()
	if s != nil {
		s.x.Close(context.Background())
	}
}

// closeAskSessions ends every conversation's session (on exit).
func closeAskSessions(a *App) {
	h := &a.asks
	h.mu.Lock()
	list := h.execs
	h.execs = nil
	h.mu.Unlock()
	for _, s := range list {
		s.x.Close(context.Background())
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// StopAsk stops the question a conversation is answering.
func (a *App) StopAsk(conversationID string) error {
	a.asks.mu.Lock()
	cancel := a.asks.cancels[conversationID]
	a.asks.mu.Unlock()
	if cancel == nil {
		return errors.New("that conversation is not answering")
	}
	cancel()
	return nil
}

// ListConversations returns the kept conversations, newest first.
func (a *App) ListConversations(limit int) ([]llm.Conversation, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return llm.ListConversations(a.core.Store(), limit)
}

// GetConversation returns one kept conversation.
func (a *App) GetConversation(id string) (llm.Conversation, error) {
	if err := a.ready(); err != nil {
		return llm.Conversation{}, err
	}
	c, err := llm.GetConversation(a.core.Store(), id)
	if err != nil {
		return llm.Conversation{}, err
	}
	return *c, nil
}

// ExportConversation returns a conversation as Markdown ("md") or a
// Jupyter notebook ("ipynb").
func (a *App) ExportConversation(id, format string) (string, error) {
	c, err := a.GetConversation(id)
	if err != nil {
		return "", err
	}
	if format == "ipynb" {
		data, err := c.Notebook()
		return string(data), err
	}
	return c.Markdown(), nil
}

// DeleteConversation removes a kept conversation.
func (a *App) DeleteConversation(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	a.asks.mu.Lock()
	cancel := a.asks.cancels[id]
	if cancel != nil {
		cancel() // it was answering: stop it first, and do not keep it
		if a.asks.deleted == nil {
			a.asks.deleted = map[string]bool{}
		}
		a.asks.deleted[id] = true
	}
	a.asks.mu.Unlock()
	a.closeAskSession(id)
	err := a.core.Store().Delete(store.Conversations, id)
	if cancel != nil && errors.Is(err, store.ErrNotFound) {
		return nil // its first question: not stored yet, and now never
	}
	return err
}
