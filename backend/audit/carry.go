package audit

import (
	"strings"

	"rehome/backend/models"
)

// carryFile is the .gguf file to carry for the model the audit chose, at
// the quantization it sized ("qwen2.5-7b-instruct-q4_k_m.gguf"), with the
// words of models.CarryLine; ok is false when the catalog does not know the
// model (by its id, or its Ollama tag when the fallback table chose it).
func carryFile(m *Model) (file, line string, ok bool) {
	if m == nil {
		return "", "", false
	}
	cm, found := catalogModel(m)
	if !found {
		return "", "", false
	}
	q := m.Quant
	if q == "" || !hasQuant(cm, q) {
		q = "Q4_K_M"
	}
	r, err := models.Fit(cm, q, models.Options{Context: 4096, KVCache: "f16"}, models.Machine{})
	if err != nil {
		return "", "", false
	}
	return r.CarryFile, models.CarryLine(r), true
}

func hasQuant(m models.Model, q string) bool {
	for _, x := range m.Quants {
		if strings.EqualFold(x, q) {
			return true
		}
	}
	return len(m.Quants) == 0
}

// catalogModel finds the audit's model in the fit catalog.
func catalogModel(m *Model) (models.Model, bool) {
	if m.ID != "" {
		cm, err := models.Lookup(m.ID)
		return cm, err == nil
	}
	all, err := models.Catalog()
	if err != nil || m.Tag == "" {
		return models.Model{}, false
	}
	for _, cm := range all {
		if strings.EqualFold(cm.Ollama, m.Tag) {
			return cm, true
		}
	}
	return models.Model{}, false
}
