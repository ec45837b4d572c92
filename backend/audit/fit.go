package audit

import (
	"slices"

	"rehome/backend/models"
)

// fitContext is the context the audit sizes the text model for: the
// num_ctx rehome's Modelfile export sets for a GPT's instructions.
const fitContext = 8192

// ModelsAdvisor takes the text models from the fit estimate
// (backend/models): every model that fits fully in VRAM at 8K context, best
// first, each at its best quantization that fits; when none does, those
// that run from RAM on the CPU.
type ModelsAdvisor struct{}

// Candidates implements FitAdvisor.
func (ModelsAdvisor) Candidates(vram, ram int64) []Model {
	all, err := models.Catalog()
	if err != nil || vram < 0 || ram < 0 {
		return nil
	}
	var out []Model
	if vram > 0 {
		for _, p := range models.Best(all, models.ManualMachine(vram, ram, 1, false), fitContext, len(all)) {
			out = append(out, fromPick(p, false))
		}
	}
	if len(out) == 0 {
		for _, p := range models.Best(all, models.ManualMachine(0, ram, 0, false), fitContext, len(all)) {
			out = append(out, fromPick(p, true))
		}
	}
	return out
}

// ollamaQuants are the quantizations at or above the 4-bit build an Ollama
// library tag holds: a model that fits at one of them fits when pulled by
// its tag. Below them (IQ4_XS, Q3_K_M) the tag's build may not fit, so the
// model is named without a tag and comes as a GGUF file.
var ollamaQuants = []string{"F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "MXFP4"}

// fromPick turns a fit pick into the audit's model. The memory is the fit's
// split: VRAMNeededBytes on the GPU (the token-embedding table stays in RAM
// and is not counted against VRAM) and RAMNeededBytes in system RAM.
func fromPick(p models.Pick, onCPU bool) Model {
	m := Model{
		ID: p.Model.ID, Name: p.Model.Name + " at " + p.Result.Quant, Quant: p.Result.Quant,
		OnCPU: onCPU, Vision: p.Model.Vision, Tools: p.Model.Tools, Coder: p.Model.HasTag("coder"),
		Score: p.Score, Source: "fit estimate",
		VRAMBytes: int64(p.Result.VRAMNeededBytes), RAMBytes: int64(p.Result.RAMNeededBytes),
	}
	if slices.Contains(ollamaQuants, p.Result.Quant) {
		m.Tag = p.Model.Ollama
	}
	if onCPU {
		m.VRAMBytes = 0
	}
	return m
}
