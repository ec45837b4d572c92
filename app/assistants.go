package app

import "rehome/backend/assistant"

// ListAssistants returns every stored assistant, newest first.
func (a *App) ListAssistants() ([]assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.assistants.List()
}

// GetAssistant returns one assistant.
func (a *App) GetAssistant(id string) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.assistants.Get(id)
}

// CreateAssistant stores a new assistant and returns it with its id.
func (a *App) CreateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.assistants.Create(in)
}

// UpdateAssistant replaces a stored assistant.
func (a *App) UpdateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return a.assistants.Update(in)
}

// DeleteAssistant removes an assistant.
func (a *App) DeleteAssistant(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.assistants.Delete(id)
}

// AssistantCapabilities lists the capability ids an assistant may have.
func (a *App) AssistantCapabilities() []assistant.Capability {
	return assistant.Capabilities
}
