package app

import (
	"rehome/backend/core"
	"rehome/backend/llamarun"
	"rehome/backend/localmodels"
)

// CarriedModels lists the GGUF files the user carried, each with how it
// fits this machine, whether it runs now and the speed last measured here.
func (svc *ModelService) CarriedModels() ([]core.CarriedModel, error) {
	a := svc.app
	return onStore(a, func(c *core.Core) ([]core.CarriedModel, error) { return c.LocalModels().List(a.ctx) })
}

// AddCarriedModel registers a .gguf file the user gave rehome (picked in
// the dialog or dropped on the window; uploaded in a browser), copying it
// into the data folder when copy is set.
func (svc *ModelService) AddCarriedModel(path string, copy bool) (_ localmodels.Model, err error) {
	a := svc.app
	defer a.guard("AddCarriedModel", &err)
	p, err := a.readyFile(path)
	if err != nil {
		return localmodels.Model{}, err
	}
	return a.core.LocalModels().Add(a.ctx, p, localmodels.AddOptions{Copy: copy, Progress: func(done, total int64) {
		a.emit("models:progress", CarriedProgress{Name: path, Done: done, Total: total})
	}})
}

// CarriedProgress is how far adding a model (hashing or copying it) is.
type CarriedProgress struct {
	Name  string `json:"name"`
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	// Message is what starting a model is waiting for.
	Message string `json:"message,omitempty"`
}

// RemoveCarriedModel forgets a carried model (its server stopped, rehome's
// copy deleted; the user's own file never).
func (svc *ModelService) RemoveCarriedModel(name string) error {
	return doOnStore(svc.app, func(c *core.Core) error {
		_, err := c.LocalModels().Remove(name)
		return err
	})
}

// StartCarriedModel starts the model's server (as Ask would on demand) and
// leaves it running for its idle time; progress comes as models:progress.
func (svc *ModelService) StartCarriedModel(name string) (llamarun.Plan, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return llamarun.Plan{}, err
	}
	lease, err := a.core.LocalModels().Serve(a.ctx, name, 0, func(msg string) {
		a.emit("models:progress", CarriedProgress{Name: name, Message: msg})
	})
	if err != nil {
		return llamarun.Plan{}, err
	}
	lease.Release() // running, and stopped after the idle time
	return lease.Plan, nil
}

// StopCarriedModel stops the model's server now.
func (svc *ModelService) StopCarriedModel(name string) error {
	return doOnStore(svc.app, func(c *core.Core) error {
		_, err := c.LocalModels().Stop(name)
		return err
	})
}

// PickModelFile opens the native dialog to choose a .gguf model file; ""
// when the user cancels. In a browser there is no dialog: the screen says
// to run `rehome models add FILE` on this machine.
func (svc *ModelService) PickModelFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose the model file you carried (.gguf)", FileFilter{Name: "GGUF model files", Patterns: "*.gguf"})
}
