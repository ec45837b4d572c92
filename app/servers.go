package app

import (
	"rehome/backend/core"
)

// ModelServers returns the model servers kept in Settings and the server
// and model last chosen, overall and per assistant.
func (svc *ModelService) ModelServers() (core.ServerPrefs, error) {
	a := svc.app
	return a.core.Servers().Prefs()
}

// SetModelServers keeps the list of model servers (and choices) given.
func (svc *ModelService) SetModelServers(p core.ServerPrefs) (core.ServerPrefs, error) {
	a := svc.app
	return a.core.Servers().SavePrefs(p)
}
