package core

import (
	"context"

	"rehome/backend/llm"
	"rehome/backend/models"
)

// Servers says which model servers and carried models are there and in
// what state, and keeps the servers chosen in Settings — the same for
// every face.
type Servers struct{ c *Core }

// Servers is the model-server service.
func (c *Core) Servers() *Servers { return &Servers{c: c} }

// Status lists the model servers on this machine (or only the one at url),
// their models, which call tools and how each fits this machine. On this
// machine, once the database is open, the carried models come last, as a
// server with no URL that rehome starts when it is asked. The servers
// found are returned with the error of a failed discovery.
func (s *Servers) Status(ctx context.Context, url string) ([]llm.Server, error) {
	servers, err := llm.Discover(ctx, llm.DiscoverOptions{URL: url, ToolsHint: llm.CatalogToolsHint})
	if servers == nil {
		servers = []llm.Server{}
	}
	if url == "" && s.c.Ready() == nil {
		servers = append(servers, s.c.LocalModels().Servers()...)
	}
	if rep, herr := s.c.hw.Report(ctx); herr == nil {
		llm.AddFit(servers, models.MachineFrom(rep))
	}
	return servers, err
}

// SuggestedModel is the text model to start a server with for assistant
// id ("": any): its default model, else the one its (or the latest) audit
// chose; "" when there is none or the database is not open.
func (s *Servers) SuggestedModel(id string) string {
	if s.c.st == nil {
		return ""
	}
	def := ""
	if id != "" {
		if as, err := s.c.assistants.Get(id); err == nil {
			def = as.Model
		}
	}
	return llm.SuggestedModel(s.c.st, id, def)
}

// Prefs are the model servers kept in Settings and the server and model
// last chosen, overall and per assistant.
func (s *Servers) Prefs() (llm.ServerPrefs, error) {
	if err := s.c.Ready(); err != nil {
		return llm.ServerPrefs{}, err
	}
	return llm.LoadServerPrefs(s.c.st)
}

// SavePrefs keeps the list of model servers (and choices) given.
func (s *Servers) SavePrefs(p llm.ServerPrefs) (llm.ServerPrefs, error) {
	if err := s.c.Ready(); err != nil {
		return llm.ServerPrefs{}, err
	}
	return llm.SaveServerPrefs(s.c.st, p)
}
