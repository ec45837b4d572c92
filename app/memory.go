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
func (a *App) MemoryList(query, scope string, limit int) ([]memory.Memory, error) {
	return a.core.Memory().List(memory.Filter{Query: query, Scope: scope, Limit: limit})
}

// MemoryAdd saves a memory the user typed, shared (assistantID "") or an
// assistant's own.
func (a *App) MemoryAdd(text, assistantID string) (memory.Memory, error) {
	m, _, err := a.core.Memory().Add(text, assistantID)
	return m, err
}

// MemoryEdit replaces a memory's text.
func (a *App) MemoryEdit(id, text string) (memory.Memory, error) {
	return a.core.Memory().Edit(id, text)
}

// MemoryDelete deletes a memory for good.
func (a *App) MemoryDelete(id string) error { return a.core.Memory().Delete(id) }

// MemoryImport saves the memories of the list ChatGPT shows under
// Settings → Personalization → Manage memories, pasted.
func (a *App) MemoryImport(text, assistantID string) (core.MemoryImport, error) {
	return a.core.Memory().Import(text, assistantID)
}

// MemoryUndo takes back what a chat's memory tool changed (its ref).
func (a *App) MemoryUndo(ref string) error { return a.core.Memory().Undo(ref) }

// MemorySettings returns the memory choices.
func (a *App) MemorySettings() (memory.Settings, error) { return a.core.Memory().Settings() }

// SetMemoryOff turns memory off everywhere (true) or on again.
func (a *App) SetMemoryOff(off bool) (memory.Settings, error) { return a.core.Memory().SetOff(off) }

// SetMemoryMode sets an assistant's memory: on (shared), off or own.
func (a *App) SetMemoryMode(assistantID, mode string) (memory.Settings, error) {
	return a.core.Memory().SetMode(assistantID, mode)
}
