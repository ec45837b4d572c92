package llm

import (
	"fmt"

	"rehome/backend/audit"
	"rehome/backend/bytesize"
	"rehome/backend/models"
)

// FitNote says how a model the audit's catalog knows (by its Ollama tag)
// fits this machine: in VRAM, on the CPU only (slow), or not at all; ""
// for a model the catalog does not know.
func FitNote(model string, m models.Machine) string {
	for _, fm := range audit.DefaultCatalog().FallbackModels {
		if fm.Tag != model {
			continue
		}
		vram, ram := uint64(fm.VRAMBytes), uint64(fm.RAMBytes)
		switch {
		case m.VRAMBytes >= vram:
			return fmt.Sprintf("fits in your VRAM (%s of %s)", bytesize.Format(int64(vram)), bytesize.Format(int64(m.VRAMBytes)))
		case m.RAMBytes >= ram:
			return fmt.Sprintf("will not fit in your VRAM (needs %s, %s here): it runs on the CPU, several times slower", bytesize.Format(int64(vram)), bytesize.Format(int64(m.VRAMBytes)))
		default:
			return fmt.Sprintf("needs %s of memory; this machine has %s", bytesize.Format(int64(ram)), bytesize.Format(int64(m.RAMBytes)))
		}
	}
	return ""
}

// AddFit fills each model's Fit note for machine m.
func AddFit(servers []Server, m models.Machine) {
	for i := range servers {
		for j := range servers[i].Models {
			servers[i].Models[j].Fit = FitNote(servers[i].Models[j].ID, m)
		}
	}
}
