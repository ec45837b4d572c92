package models

import (
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	r := fit(t, "llama-3.1-8b-instruct", "Q4_K_M", 8192, "f16", ManualMachine(0, 24*gib, 0, false))
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Llama 3.1 8B Instruct, Q4_K_M, 8192 tokens, f16 KV cache",
		"KV cache (f16, 8192 tokens)  1 GiB",
		"2 (K and V) × 32 layers × 8192 tokens × 8 KV heads × 128 head dim × 2 bytes (f16)",
		"CPU only", "Largest context that fits in RAM: 131072 tokens", "Download: about 4.9 GB (4.6 GiB)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	all, _ := Catalog()
	b.Reset()
	WriteCatalog(&b, all)
	if !strings.Contains(b.String(), "qwen3-30b-a3b") || !strings.Contains(b.String(), "MoE 8/128") || !strings.Contains(b.String(), "gemma3:27b") || !strings.Contains(b.String(), "TOOLS") {
		t.Errorf("catalog table:\n%s", b.String())
	}
	b.Reset()
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	WritePicks(&b, mach, 8192, Best(all, mach, 8192, 3))
	if !strings.Contains(b.String(), "1.  qwen2.5-32b-instruct") {
		t.Errorf("picks:\n%s", b.String())
	}
	b.Reset()
	WritePicks(&b, ManualMachine(0, gib, 0, false), 8192, nil)
	if !strings.Contains(b.String(), "None fits") {
		t.Errorf("no picks:\n%s", b.String())
	}
}
