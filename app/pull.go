package app

import (
	"context"
	"time"

	"rehome/backend/core"
)

// PullSource says whether an Ollama server runs here to pull models (the
// Hardware screen's Pull buttons), or why not.
func (svc *ModelService) PullSource() (core.PullSource, error) {
	a := svc.app
	ctx, cancel := context.WithTimeout(a.ctx, 3*time.Second)
	defer cancel()
	return a.core.Pulls().Source(ctx), nil
}

// PullModel has Ollama pull a catalog model (its id or Ollama tag); its
// progress comes as models:pull events, and CancelPull stops it.
func (svc *ModelService) PullModel(name string) (core.PullProgress, error) {
	a := svc.app
	return a.core.Pulls().Pull(a.ctx, name, func(p core.PullProgress) {
		a.emit("models:pull", p)
	})
}

// CancelPull stops the pull of name (Ollama keeps what it downloaded).
func (svc *ModelService) CancelPull(name string) error {
	a := svc.app
	a.core.Pulls().Cancel(name)
	return nil
}
