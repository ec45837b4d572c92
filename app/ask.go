package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"rehome/backend/audit"
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
func (a *App) LLMHint() string { return llm.StartHint(a.suggestedModel()) }

func (a *App) suggestedModel() string {
	if a.core.Store() == nil {
		return ""
	}
	if recs, err := store.List[audit.Record](a.core.Store(), store.Audits, 1); err == nil && len(recs) > 0 && recs[0].TextModel != nil {
		return recs[0].TextModel.Tag
	}
	return ""
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
	// Only files the user gave (uploaded, picked, dropped) reach a
	// conversation, as with RunCode; stored conversations keep such paths.
	var files []string
	for _, p := range req.Files {
		p, err := a.readable(p)
		if err != nil {
			return llm.Conversation{}, err
		}
		files = append(files, p)
	}
	if req.ConversationID != "" {
		c, err := llm.GetConversation(a.core.Store(), req.ConversationID)
		if err != nil {
			return llm.Conversation{}, err
		}
		conv = c
		if req.AssistantID == "" {
			req.AssistantID = c.AssistantID
		}
		if len(files) == 0 {
			for _, f := range c.Files {
				files = append(files, f.HostPath)
			}
		}
	}
	instructions := ""
	if req.AssistantID != "" {
		as, err := a.core.Assistants().Get(req.AssistantID)
		if err != nil {
			return llm.Conversation{}, err
		}
		instructions = as.Instructions
		conv.AssistantID, conv.AssistantName = as.ID, as.Name
		for _, k := range as.Knowledge {
			if k.Path != "" && fileExists(k.Path) {
				files = append(files, k.Path)
			}
		}
	}
	conv.Files = []llm.FileInfo{}
	if len(files) > 0 {
		// One-shot runs show one file to the code (sessions show them all).
		fi, err := llm.DescribeFile(files[0])
		if err != nil {
			return llm.Conversation{}, err
		}
		conv.Files = append(conv.Files, fi)
	}

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

	srv, model, err := llm.Pick(ctx, req.Server, req.Model, llm.CatalogToolsHint, a.suggestedModel())
	if err != nil {
		return llm.Conversation{}, err
	}
	conv.Server, conv.Model = srv.BaseURL, model
	e, err := a.engine()
	if err != nil {
		return llm.Conversation{}, err
	}
	lim, err := a.RunLimits()
	if err != nil {
		return llm.Conversation{}, err
	}
	ex := &sandboxexec.OneShot{Engine: e, Limits: lim, OutputDir: filepath.Join(a.cfg.DataDir, RunsDir), InlinePlots: true,
		Done: func(r sandbox.RunRequest, res *sandbox.Result) {
			a.core.Runs().Keep(sandbox.NewRecord(r, res, "ask"))
		}}
	if len(conv.Files) > 0 {
		ex.InputPath = conv.Files[0].HostPath
	}
	loop := &llm.Loop{Client: &llm.Client{BaseURL: srv.BaseURL}, Model: model, Instructions: instructions,
		Files: conv.Files, Exec: ex, Stateless: true, MaxSteps: req.MaxSteps, Mode: req.Mode, History: conv.History(),
		OnEvent: func(ev llm.Event) { a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: ev}) }}
	a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: llm.Event{Type: "start", Text: fmt.Sprintf("%s at %s", model, srv.BaseURL)}})
	t := loop.Ask(ctx, q)
	conv.Add(t)
	if err := llm.SaveConversation(a.core.Store(), conv); err != nil {
		return *conv, err
	}
	a.log.Info("ask", "conversation", conv.ID, "model", model, "stopped", t.Stopped, "cells", len(t.Cells()), "ms", t.DurationMS)
	return *conv, nil
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
	return a.core.Store().Delete(store.Conversations, id)
}
