package core

import (
	"rehome/backend/assistant"
)

// Assistants is the assistant service as every face sees it: the records
// (assistant.Service's) and the import rules, kept here once.
type Assistants struct {
	*assistant.Service
}

// Assistants is the assistant service (nil before Open, after a failed
// one, or in Brief mode).
func (c *Core) Assistants() *Assistants {
	if c.assistants == nil {
		return nil
	}
	return &Assistants{c.assistants}
}

// ImportBundleFile imports a rehome bundle (.tar.gz or .zip). A bundle
// brings its own knowledge files: knowledge given beside it is refused
// with ErrBundleKnowledge (attach files to a JSON import only).
func (a *Assistants) ImportBundleFile(file string, knowledge []string) (assistant.Imported, error) {
	if len(knowledge) > 0 {
		return assistant.Imported{}, ErrBundleKnowledge
	}
	return a.ImportBundle(file)
}
