package app

import "rehome/backend/assistant"

// ListAssistants returns every stored assistant, newest first.
func (a *App) ListAssistants() ([]assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.core.Assistants().List()
}

// GetAssistant returns one assistant.
func (a *App) GetAssistant(id string) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Get(id)
}

// CreateAssistant stores a new assistant and returns it with its id.
func (a *App) CreateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Create(in)
}

// UpdateAssistant replaces a stored assistant.
func (a *App) UpdateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Update(in)
}

// DeleteAssistant removes an assistant.
func (a *App) DeleteAssistant(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	if err := a.core.Assistants().Delete(id); err != nil {
		return err
	}
	if err := a.core.Knowledge().Forget(id); err != nil {
		a.log.Warn("remove a deleted assistant's knowledge", "assistant", id, "err", err)
	}
	return nil
}

// AssistantCapabilities lists the capability ids an assistant may have.
func (a *App) AssistantCapabilities() []assistant.Capability {
	return assistant.Capabilities
}
