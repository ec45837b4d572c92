package audit

import (
	"slices"

	"rehome/backend/models"
)

// fitContext is the context the audit sizes the text model for: the
// num_ctx rehome's Modelfile export sets for a GPT's instructions.
const fitContext = 8192

// ModelsAdvisor takes the text model from the fit estimate
// (backend/models): the best model that fits fully in VRAM at 8K context
// and, when none does, the best that runs from RAM on the CPU.
type ModelsAdvisor struct{}

// BestFor implements FitAdvisor.
func (ModelsAdvisor) BestFor(vram, ram int64) (Model, bool) {
	all, err := models.Catalog()
	if err != nil || vram < 0 || ram < 0 {
		return Model{}, false
	}
	if vram > 0 {
		if p := models.Best(all, models.ManualMachine(uint64(vram), uint64(ram), 1, false), fitContext, 1); len(p) > 0 {
			return fromPick(p[0], false), true
		}
	}
	if p := models.Best(all, models.ManualMachine(0, uint64(ram), 0, false), fitContext, 1); len(p) > 0 {
		return fromPick(p[0], true), true
	}
	return Model{}, false
}

func fromPick(p models.Pick, onCPU bool) Model {
	m := Model{
		ID: p.Model.ID, Name: p.Model.Name + " at " + p.Result.Quant, Quant: p.Result.Quant,
		OnCPU: onCPU, Vision: slices.Contains(p.Model.Tags, "vision"), Source: "fit estimate",
	}
	if onCPU {
		m.RAMBytes = int64(p.Result.TotalBytes)
	} else {
		m.VRAMBytes = int64(p.Result.TotalBytes)
	}
	return m
}
