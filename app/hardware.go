package app

import (
	"context"
	"time"

	"rehome/backend/core"
	"rehome/backend/hardware"
	"rehome/backend/models"
)

// detectTimeout bounds one detection (nvidia-smi is the slow part).
const detectTimeout = 30 * time.Second

func (a *App) hardwareCache() *core.Hardware { return a.core.Hardware() }

// Hardware returns the machine's CPU, RAM and GPUs with their VRAM and the
// source of each figure. It detects once per session; refresh detects again.
func (svc *ModelService) Hardware(refresh bool) (hardware.Report, error) {
	a := svc.app
	ctx, cancel := context.WithTimeout(a.ctx, detectTimeout)
	defer cancel()
	if refresh {
		return a.hardwareCache().Refresh(ctx)
	}
	return a.hardwareCache().Report(ctx)
}

// Models lists the catalog of open-weight models.
func (svc *ModelService) Models() ([]models.Model, error) {
	return models.Catalog()
}

// FitChoices are the quantizations and KV cache types the UI offers.
type FitChoices struct {
	Quants   []models.QuantInfo `json:"quants"`
	KVCaches []string           `json:"kv_caches"`
}

// FitOptions lists the quantizations and KV cache types.
func (svc *ModelService) FitOptions() (FitChoices, error) {
	return FitChoices{Quants: models.Quants(), KVCaches: models.KVCacheTypes()}, nil
}

// Fit estimates one model (or a local .gguf file) at one quantization and
// context, on this machine or on memory given by hand.
func (svc *ModelService) Fit(req models.Request) (_ models.FitResult, err error) {
	a := svc.app
	defer a.guard("Fit", &err)
	return fitOn(a, req.VRAM != "" && req.RAM != "", req.Machine, req.Run)
}

// FitTable fits every catalog model at one context and ranks the best.
func (svc *ModelService) FitTable(req models.TableRequest) (_ models.Table, err error) {
	a := svc.app
	defer a.guard("FitTable", &err)
	return fitOn(a, req.VRAM != "" && req.RAM != "", req.Machine, func(mach models.Machine) (models.Table, error) {
		all, err := models.Catalog()
		if err != nil {
			return models.Table{}, err
		}
		return models.BuildTable(all, req, mach)
	})
}

// fitOn is fit against the memory of a request: given by hand (byHand)
// or detected, as resolve makes it (a.machine); where that fails, its
// error in the window's words.
func fitOn[T any](a *App, byHand bool, resolve func(*hardware.Report) (models.Machine, error), fit func(models.Machine) (T, error)) (T, error) {
	mach, err := a.machine(byHand, resolve)
	if err != nil {
		var zero T
		return zero, uiError(err)
	}
	return fit(mach)
}

// machine resolves the memory to fit against, detecting unless every
// figure was given by hand.
func (a *App) machine(byHand bool, resolve func(*hardware.Report) (models.Machine, error)) (models.Machine, error) {
	if byHand {
		return resolve(nil)
	}
	r, err := a.Hardware(false)
	if err != nil {
		return models.Machine{}, err
	}
	return resolve(&r)
}
