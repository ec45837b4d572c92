package app

import (
	"rehome/backend/core"
)

// ModelServers returns the model servers kept in Settings and the server
// and model last chosen, overall and per assistant.
func (a *App) ModelServers() (core.ServerPrefs, error) {
	return a.core.Servers().Prefs()
}

// SetModelServers keeps the list of model servers (and choices) given.
func (a *App) SetModelServers(p core.ServerPrefs) (core.ServerPrefs, error) {
	return a.core.Servers().SavePrefs(p)
}
