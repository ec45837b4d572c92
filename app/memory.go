package app

import (
	"rehome/backend/core"
	"rehome/backend/memory"
)

// Settings → Memory, and the Undo under a chat's "Memory updated": each
// method one call of core.Memory.

// MemoryList returns the saved memories holding every word of query
// ("" all), of scope ("" all, "shared", or an assistant's id), newest
// first, at most limit (0: all).
func (svc *AskService) MemoryList(query, scope string, limit int) ([]memory.Memory, error) {
	a := svc.app
	return a.core.Memory().List(memory.Filter{Query: query, Scope: scope, Limit: limit})
}

// MemoryAdd saves a memory the user typed, shared (assistantID "") or an
// assistant's own.
func (svc *AskService) MemoryAdd(text, assistantID string) (memory.Memory, error) {
	a := svc.app
	m, _, err := a.core.Memory().Add(text, assistantID)
	return m, err
}

// MemoryEdit replaces a memory's text.
func (svc *AskService) MemoryEdit(id, text string) (memory.Memory, error) {
	a := svc.app
	return a.core.Memory().Edit(id, text)
}

// MemoryDelete deletes a memory for good.
func (svc *AskService) MemoryDelete(id string) error { return svc.app.core.Memory().Delete(id) }

// MemoryImport saves the memories of the list ChatGPT shows under
// Settings → Personalization → Manage memories, pasted.
func (svc *AskService) MemoryImport(text, assistantID string) (core.MemoryImport, error) {
	a := svc.app
	return a.core.Memory().Import(text, assistantID)
}

// MemoryUndo takes back what a chat's memory tool changed (its ref).
func (svc *AskService) MemoryUndo(ref string) error { return svc.app.core.Memory().Undo(ref) }

// MemorySettings returns the memory choices.
func (svc *AskService) MemorySettings() (memory.Settings, error) {
	return svc.app.core.Memory().Settings()
}

// SetMemoryOff turns memory off everywhere (true) or on again.
func (svc *AskService) SetMemoryOff(off bool) (memory.Settings, error) {
	return svc.app.core.Memory().SetOff(off)
}

// SetMemoryMode sets an assistant's memory: on (shared), off or own.
func (svc *AskService) SetMemoryMode(assistantID, mode string) (memory.Settings, error) {
	a := svc.app
	return a.core.Memory().SetMode(assistantID, mode)
}
