package models

import (
	"fmt"
	"path/filepath"
	"strings"

	"rehome/backend/bytesize"
)

// CarryFile is the name of the .gguf file to carry for model m at
// quantization quant: the model's id and the quantization, in lower case
// ("qwen2.5-7b-instruct-q4_k_m.gguf"), the name the publishers' GGUF
// repositories give it (some capitalise it: "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
// is the same file). A model read from a file is that file's name.
func CarryFile(m Model, quant string) string {
	if m.FromFile != "" {
		return filepath.Base(m.FromFile)
	}
	return strings.ToLower(m.ID + "-" + quant + ".gguf")
}

// CarryLine says which file to carry for a fit and how to add it, for a
// machine that cannot download: "carry qwen2.5-7b-instruct-q4_k_m.gguf
// (Qwen2.5 7B Instruct at Q4_K_M, about 4.7 GB) and run `rehome models add
// FILE`".
func CarryLine(r FitResult) string {
	return fmt.Sprintf("carry %s (%s at %s, about %.1f GB = %s) and run `rehome models add FILE`",
		r.CarryFile, r.ModelName, r.Quant, float64(r.FileBytes)/1e9, bytesize.Format(r.FileBytes))
}
