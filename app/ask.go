package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"rehome/backend/assistant"
	"rehome/backend/core"
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
	// Rewind takes back this many of the last questions first
	// (regenerate: 1 with the same question; edit-and-resend).
	Rewind int `json:"rewind,omitempty"`
	// Temporary starts a temporary chat: no memory read or saved.
	Temporary bool `json:"temporary,omitempty"`
	// Images are host paths of images (dropped, pasted, uploaded) shown
	// to a model that reads images.
	Images []string `json:"images,omitempty"`
}

// AskEvent is a step of a question, for the screen.
type AskEvent struct {
	ConversationID string `json:"conversation_id"`
	core.Event
}

type askHolder struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	// deleted are conversations deleted while answering: not saved again.
	deleted map[string]bool
}

// LLMStatus lists the model servers (on this machine, or the one at
// server), their models and which call tools; on this machine the carried
// models come last, as a server with no URL that rehome starts on demand.
func (svc *AskService) LLMStatus(server string) ([]core.Server, error) {
	a := svc.app
	return a.core.Servers().Status(a.ctx, server)
}

// LLMHint says how to start a model server, naming the model the latest
// audit chose.
func (svc *AskService) LLMHint() string {
	return core.StartHint(svc.app.core.Servers().SuggestedModel(""))
}

// LLMHintFor says how to start a model server for an assistant: the
// `ollama pull` of its default model, else of the model its audit chose.
func (svc *AskService) LLMHintFor(assistantID string) string {
	a := svc.app
	return core.StartHint(a.core.Servers().SuggestedModel(assistantID))
}

// SetAssistantModel stores model as the assistant's default ("" lets
// rehome choose), and returns the assistant.
func (svc *AskService) SetAssistantModel(id, model string) (assistant.Assistant, error) {
	a := svc.app
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
func (svc *AskService) Ask(req AskRequest) (core.Conversation, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.Conversation{}, err
	}
	if strings.TrimSpace(req.Question) == "" {
		return core.Conversation{}, core.ErrNoQuestion
	}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	// A new conversation's id is the core's to make: the busy check is
	// for one that answers already.
	if req.ConversationID != "" {
		if !a.asks.begin(req.ConversationID, cancel) {
			return core.Conversation{}, errors.New("this conversation is still answering: wait, or press Stop")
		}
		defer a.asks.end(req.ConversationID)
	}
	// Starting a carried model says what it waits for, as notes.
	progress := func(msg string) {
		a.emit("ask:event", AskEvent{ConversationID: req.ConversationID, Event: core.Event{Type: "note", Text: msg}})
	}
	ask, err := a.core.Asks().Prepare(ctx, core.AskRequest{
		ConversationID: req.ConversationID, AssistantID: req.AssistantID,
		Files: req.Files, Check: a.readable, Confirm: a.confirmAction, Progress: progress,
		Server: req.Server, Model: req.Model, MaxSteps: req.MaxSteps, Mode: req.Mode, Question: req.Question, Rewind: req.Rewind,
		InlinePlots: true, Temporary: req.Temporary, Images: req.Images,
	})
	if err != nil {
		return core.Conversation{}, uiError(err)
	}
	conv := ask.Conversation
	if req.ConversationID == "" {
		a.asks.begin(conv.ID, cancel)
		defer a.asks.end(conv.ID)
	}
	emit := func(ev core.Event) { a.emit("ask:event", AskEvent{ConversationID: conv.ID, Event: ev}) }
	emit(core.Event{Type: "start", Text: fmt.Sprintf("%s at %s", ask.Model, ask.Server.BaseURL)})
	for _, n := range ask.Notes {
		emit(core.Event{Type: "note", Text: n})
	}
	if ask.Fresh {
		emit(core.Event{Type: "note", Text: "A new Python session: variables from this conversation's earlier cells are gone (the window was closed, or the files changed). The model is told, and re-runs what it needs."})
	}
	ask.Run(ctx, emit)
	a.asks.mu.Lock()
	gone := a.asks.deleted[conv.ID]
	delete(a.asks.deleted, conv.ID)
	a.asks.mu.Unlock()
	if gone {
		return *conv, errors.New("the conversation was deleted while it answered")
	}
	if err := ask.Keep(); err != nil {
		return *conv, err
	}
	return *conv, nil
}

// begin marks a conversation as answering, with the cancel that stops
// it; false when it answers already.
func (h *askHolder) begin(id string, cancel context.CancelFunc) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancels == nil {
		h.cancels = map[string]context.CancelFunc{}
	}
	if _, busy := h.cancels[id]; busy {
		return false
	}
	h.cancels[id] = cancel
	return true
}

// end marks a conversation as done answering.
func (h *askHolder) end(id string) {
	h.mu.Lock()
	delete(h.cancels, id)
	h.mu.Unlock()
}

// stop cancels what runs for a conversation; false when nothing does.
func (h *askHolder) stop(id string) bool {
	h.mu.Lock()
	cancel := h.cancels[id]
	h.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

// closeAskSession ends a conversation's session, if it has one.
func (a *App) closeAskSession(id string) {
	a.core.Asks().Close(context.Background(), id)
}

// StopAsk stops the question a conversation is answering.
func (svc *AskService) StopAsk(conversationID string) error {
	if !svc.app.asks.stop(conversationID) {
		return errors.New("that conversation is not answering")
	}
	return nil
}

// DeleteConversation removes a kept conversation.
func (svc *AskService) DeleteConversation(id string) error {
	a := svc.app
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
	err := a.core.Conversations().Delete(id)
	if cancel != nil && errors.Is(err, core.ErrNotFound) {
		return nil // its first question: not stored yet, and now never
	}
	return err
}
