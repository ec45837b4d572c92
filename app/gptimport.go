package app

import (
	"errors"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/core"
)

// PreviewAssistants says what ImportAssistants would do with the JSON —
// per GPT: its name, capabilities, actions and their auth, the files to
// bring, whether it updates an assistant imported before — storing
// nothing. The window shows it before the user imports.
func (svc *AssistantService) PreviewAssistants(json string) (assistant.ImportReport, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return assistant.ImportReport{}, err
	}
	if strings.TrimSpace(json) == "" {
		return assistant.ImportReport{}, errors.New("paste the GPT's JSON, or drop its file, first")
	}
	rep, err := a.core.PreviewJSON([]byte(json))
	return rep, uiError(err)
}

// ChatGPTSnippet is the script the user pastes into the browser's
// console on chatgpt.com to save their own GPTs as one JSON file rehome
// imports (docs/chatgpt-export.md says what it calls and saves).
func (svc *AssistantService) ChatGPTSnippet() (string, error) {
	return assistant.ChatGPTSnippet, nil
}

// SetActionCredentials gives an action what it waits for: its API key, or
// its OAuth client. The key and the secret go to the data folder's
// owner-only file only.
func (svc *AssistantService) SetActionCredentials(assistantID, name string, in core.ActionCredentials) (core.ActionInfo, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.ActionInfo{}, err
	}
	info, err := a.core.Actions().SetCredentials(assistantID, name, in)
	if err != nil {
		return core.ActionInfo{}, uiError(err)
	}
	a.log.Info("action credentials kept", "assistant", assistantID, "action", info.Name, "waiting", info.Waiting)
	return info, nil
}
