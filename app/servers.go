package app

import "rehome/backend/llm"

// ModelServers returns the model servers kept in Settings and the server
// and model last chosen, overall and per assistant.
func (a *App) ModelServers() (llm.ServerPrefs, error) {
	return a.core.Servers().Prefs()
}

// SetModelServers keeps the list of model servers (and choices) given.
func (a *App) SetModelServers(p llm.ServerPrefs) (llm.ServerPrefs, error) {
	return a.core.Servers().SavePrefs(p)
}
