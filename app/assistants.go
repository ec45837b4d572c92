package app

import (
	"slices"

	"rehome/backend/assistant"
	"rehome/backend/core"
)

// ListAssistants returns every stored assistant, newest first.
func (svc *AssistantService) ListAssistants() ([]assistant.Assistant, error) {
	return onStore(svc.app, func(c *core.Core) ([]assistant.Assistant, error) { return c.Assistants().List() })
}

// GetAssistant returns one assistant.
func (svc *AssistantService) GetAssistant(id string) (assistant.Assistant, error) {
	return onStore(svc.app, func(c *core.Core) (assistant.Assistant, error) { return c.Assistants().Get(id) })
}

// CreateAssistant stores a new assistant and returns it with its id. A
// knowledge file must be one the user gave rehome (see readable); it is
// copied into rehome's knowledge library.
func (svc *AssistantService) CreateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	if err := a.attachKnowledge(&in, nil); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Create(in)
}

// UpdateAssistant replaces a stored assistant; a knowledge file it did
// not have before is taken as CreateAssistant takes it.
func (svc *AssistantService) UpdateAssistant(in assistant.Assistant) (assistant.Assistant, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return assistant.Assistant{}, err
	}
	old, err := a.core.Assistants().Get(in.ID)
	if err != nil {
		return assistant.Assistant{}, err
	}
	if err := a.attachKnowledge(&in, old.Knowledge); err != nil {
		return assistant.Assistant{}, err
	}
	return a.core.Assistants().Update(in)
}

// attachKnowledge replaces every knowledge path of in that is neither
// rehome's own copy nor unchanged from old with the library's copy of the
// file — when the user gave rehome that file; else it refuses.
func (a *App) attachKnowledge(in *assistant.Assistant, old []assistant.KnowledgeFile) error {
	lib := a.core.Assistants().Library()
	for i, k := range in.Knowledge {
		if k.Path == "" || lib.Owns(k) || slices.Contains(old, k) {
			continue
		}
		p, err := a.readable(k.Path)
		if err != nil {
			return err
		}
		own, err := lib.Add(p)
		if err != nil {
			return err
		}
		if k.Name != "" {
			own.Name = k.Name
		}
		in.Knowledge[i] = own
	}
	return nil
}

// DeleteAssistant removes an assistant.
func (svc *AssistantService) DeleteAssistant(id string) error {
	a := svc.app
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
func (svc *AssistantService) AssistantCapabilities() []assistant.Capability {
	return assistant.Capabilities
}
