package app

import "rehome/backend/llm"

// RenameConversation gives a kept conversation the title the user typed
// (blank: its first question again).
func (a *App) RenameConversation(id, title string) (llm.Conversation, error) {
	if err := a.ready(); err != nil {
		return llm.Conversation{}, err
	}
	c, err := llm.RenameConversation(a.core.Store(), id, title)
	if err != nil {
		return llm.Conversation{}, err
	}
	return *c, nil
}
