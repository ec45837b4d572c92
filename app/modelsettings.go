package app

import "rehome/backend/core"

// Each model's settings (temperature, context length, system prompt),
// kept by core.ModelPrefs and read by every question asked with it, and
// the Run of a ```python block an answer wrote.

// ModelSettings returns every model's settings, by model name.
func (svc *ModelService) ModelSettings() (map[string]core.ModelSettings, error) {
	a := svc.app
	return a.core.ModelSettings().All()
}

// SetModelSettings keeps the settings of the model called model (nothing
// set forgets them) and returns what was kept.
func (svc *ModelService) SetModelSettings(model string, settings core.ModelSettings) (core.ModelSettings, error) {
	a := svc.app
	return a.core.ModelSettings().Save(model, settings)
}

// RunAnswerBlock runs a ```python block of the conversation's answer
// number exchange (from 0) in its sandbox session, as the user clicked
// Run on it; its plots come back inline.
func (svc *ModelService) RunAnswerBlock(conversationID string, exchange int, code string) (*core.BlockRun, error) {
	a := svc.app
	return a.core.Asks().RunBlock(a.ctx, core.BlockRunRequest{ConversationID: conversationID, Exchange: exchange, Code: code, InlinePlots: true})
}
