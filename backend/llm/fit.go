package llm

import (
	"fmt"
	"strings"

	"rehome/backend/bytesize"
	"rehome/backend/models"
)

// CPUBandwidth is the memory bandwidth, in bytes per second, that the CPU
// speed estimate assumes: what a desktop's dual-channel DDR4 or DDR5
// delivers to llama.cpp in practice. Decoding reads every active weight
// once per token, so a model runs at about this many bytes per second
// divided by the bytes of its weights. It is the low end of the range the
// Hardware screen's estimate gives (models.CPUSpeed).
const CPUBandwidth = models.CPUBandwidthLow

// fitQuant is the quantization Ollama's library tags hold (Q4_K_M).
const fitQuant = "Q4_K_M"

// Fit is how a model fits this machine, for the screen and `llm status`.
type Fit struct {
	// Verdict is models' verdict: gpu, partial, cpu or none.
	Verdict string `json:"verdict"`
	// Note says it in the user's words.
	Note string `json:"note"`
	// CPUTokensPerSecond estimates its speed on the CPU (from RAM).
	CPUTokensPerSecond float64 `json:"cpu_tokens_per_second,omitempty"`
}

// FitOf estimates how the model a server names (an Ollama tag such as
// qwen2.5:7b) fits machine m, from rehome's model catalog at the 4-bit
// quantization Ollama's library tags hold; ok is false for a model the
// catalog does not know.
func FitOf(model string, m models.Machine) (Fit, bool) {
	cm, ok := catalogModel(model)
	if !ok {
		return Fit{}, false
	}
	r, err := models.Fit(cm, fitQuant, models.Options{Context: 8192}, m)
	if err != nil {
		return Fit{}, false
	}
	f := Fit{Verdict: r.Verdict}
	if r.WeightsBytes > 0 {
		active := float64(r.WeightsBytes)
		if cm.ParamsText > 0 && cm.ParamsActive > 0 && cm.ParamsActive < cm.ParamsText {
			active *= float64(cm.ParamsActive) / float64(cm.ParamsText) // a mixture of experts reads the used ones
		}
		f.CPUTokensPerSecond = CPUBandwidth / active
	}
	here := bytesize.Format(m.VRAMBytes) + " here"
	if m.VRAMBytes == 0 {
		here = "no GPU here"
	}
	speed := fmt.Sprintf("expect about %s tok/s on the CPU", tokS(f.CPUTokensPerSecond))
	switch r.Verdict {
	case models.VerdictGPU:
		f.Note = fmt.Sprintf("fits in your VRAM (%s of %s)", bytesize.Format(r.TotalBytes), bytesize.Format(m.VRAMBytes))
	case models.VerdictPartial:
		f.Note = fmt.Sprintf("will not fit in your VRAM (needs %s, %s): %d of %d layers run on the GPU, the rest on the CPU; %s alone", bytesize.Format(r.TotalBytes), here, r.LayersOnGPU, r.Layers, speed)
	case models.VerdictCPU:
		f.Note = fmt.Sprintf("will not fit in your VRAM (needs %s, %s): %s", bytesize.Format(r.TotalBytes), here, speed)
	default:
		f.Note = fmt.Sprintf("will not fit in this machine's memory: it needs %s, this machine has %s of RAM and %s of VRAM", bytesize.Format(r.TotalBytes), bytesize.Format(m.RAMBytes), bytesize.Format(m.VRAMBytes))
	}
	return f, true
}

func tokS(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// catalogModel finds the catalog's model by its Ollama tag (":latest"
// and the default tag's size are matched too).
func catalogModel(tag string) (models.Model, bool) {
	all, err := models.Catalog()
	if err != nil {
		return models.Model{}, false
	}
	tag = strings.TrimSuffix(strings.ToLower(tag), ":latest")
	for _, m := range all {
		if m.Ollama != "" && strings.ToLower(m.Ollama) == tag {
			return m, true
		}
	}
	return models.Model{}, false
}

// FitNote says how a model the catalog knows (by its Ollama tag) fits
// this machine: in VRAM, partly or only on the CPU (with the speed to
// expect there), or not at all; "" for a model the catalog does not know.
func FitNote(model string, m models.Machine) string {
	f, ok := FitOf(model, m)
	if !ok {
		return ""
	}
	return f.Note
}

// AddFit fills each model's Fit note for machine m.
func AddFit(servers []Server, m models.Machine) {
	for i := range servers {
		for j := range servers[i].Models {
			servers[i].Models[j].Fit = FitNote(servers[i].Models[j].ID, m)
		}
	}
}
