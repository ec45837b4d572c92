package app

import (
	"rehome/backend/core"
)

// The kept conversations, through core.Conversations: the window and the
// bridge name a conversation as the terminal does (an id, the start of
// one, "last", an imported conversation's ChatGPT id).

// ListConversations returns the kept conversations' summaries, newest
// first, each filed under its assistant (an imported GPT's under the
// assistant with its gizmo id).
func (svc *AskService) ListConversations(limit int) ([]core.ConversationSummary, error) {
	return onStore(svc.app, func(c *core.Core) ([]core.ConversationSummary, error) { return c.Conversations().List(limit) })
}

// SearchConversations returns the summaries of the kept conversations
// whose title, questions or answers hold every word of query, newest
// first.
func (svc *AskService) SearchConversations(query string, limit int) ([]core.ConversationSummary, error) {
	return onStore(svc.app, func(c *core.Core) ([]core.ConversationSummary, error) { return c.Conversations().Search(query, limit) })
}

// GetConversation returns one kept conversation.
func (svc *AskService) GetConversation(id string) (core.Conversation, error) {
	return onStore(svc.app, func(c *core.Core) (core.Conversation, error) { return value(c.Conversations().Get(id)) })
}

// ShowConversation returns a conversation as data: turns with their role
// and text, cells, sources, its assistant and gizmo id (as `rehome
// conversations show ID --json`).
func (svc *AskService) ShowConversation(id string) (core.ConversationView, error) {
	return onStore(svc.app, func(c *core.Core) (core.ConversationView, error) { return value(c.Conversations().View(id)) })
}

// ExportConversation returns a conversation as Markdown ("md") or a
// Jupyter notebook ("ipynb").
func (svc *AskService) ExportConversation(id, format string) (string, error) {
	return onStore(svc.app, func(c *core.Core) (string, error) {
		data, _, err := c.Conversations().Export(id, format)
		return string(data), err
	})
}

// RenameConversation gives a kept conversation the title the user typed
// (blank: its first question again).
func (svc *AskService) RenameConversation(id, title string) (core.Conversation, error) {
	return onStore(svc.app, func(c *core.Core) (core.Conversation, error) { return value(c.Conversations().Rename(id, title)) })
}

// ImportConversations imports ChatGPT's data export — its .zip, its
// conversations.json, or one conversation — dropped on the window or
// picked (in a browser: uploaded). It streams: progress goes out as
// "conversations:import" (core.ImportProgress); the report says what
// was imported, filed under which GPT, and what was not and why. A
// refusal part-way keeps what came before it and returns the report with
// the error.
func (svc *AskService) ImportConversations(path string) (core.ImportReport, error) {
	a := svc.app
	clean, err := a.readyFile(path)
	if err != nil {
		return core.ImportReport{}, err
	}
	rep, err := a.core.Conversations().Import(a.ctx, clean, func(p core.ImportProgress) {
		a.emit("conversations:import", p)
	})
	a.dropUploads([]string{clean})
	if rep == nil {
		return core.ImportReport{}, uiError(err)
	}
	if err != nil {
		rep.Stopped = uiError(err).Error()
	}
	return *rep, nil
}

// PickExport asks, in the window's native dialog, for ChatGPT's data
// export (its .zip or conversations.json) and returns the path chosen
// ("" when cancelled), which ImportConversations may then read.
func (svc *AskService) PickExport() (string, error) {
	a := svc.app
	return a.pickGiven("Choose ChatGPT's data export", FileFilter{Name: "ChatGPT data export (.zip, conversations.json)", Patterns: "*.zip;*.json"})
}
