package models

import (
	"errors"
	"strings"
	"testing"

	"rehome/backend/hardware"
)

func TestRequestMachine(t *testing.T) {
	det := &hardware.Report{Memory: hardware.Memory{TotalBytes: 32 * gib}, GPUs: []hardware.GPU{}}
	m, err := Request{}.Machine(det)
	if err != nil || m.ByHand || m.GPUs != 0 || m.RAMBytes != 32*gib {
		t.Errorf("detected: %+v %v", m, err)
	}
	m, err = Request{VRAM: "24GiB", RAM: "64GiB"}.Machine(nil)
	if err != nil || !m.ByHand || m.VRAMBytes != 24*gib || m.RAMBytes != 64*gib || m.GPUs != 1 {
		t.Errorf("by hand: %+v %v", m, err)
	}
	m, err = Request{VRAM: "16GB"}.Machine(det)
	if err != nil || m.VRAMBytes != 16e9 || m.RAMBytes != 32*gib {
		t.Errorf("VRAM by hand, RAM detected: %+v %v", m, err)
	}
	if _, err := (Request{VRAM: "lots"}).Machine(det); err == nil || !strings.Contains(err.Error(), "VRAM") {
		t.Errorf("bad VRAM: %v", err)
	}
	// The missing fact, typed, in the domain's words: each face adds how
	// to give it.
	var mm *MissingMemoryError
	if _, err := (Request{VRAM: "24GiB"}).Machine(nil); !errors.As(err, &mm) || !mm.RAM || mm.VRAM || strings.Contains(err.Error(), "--") {
		t.Errorf("VRAM alone without a machine: %v", err)
	}
	if _, err := (Request{}).Machine(nil); !errors.As(err, &mm) || !mm.VRAM || !mm.RAM || strings.Contains(err.Error(), "--") {
		t.Errorf("no machine at all: %v", err)
	}
	if _, err := (Request{VRAM: "96GiB", RAM: "64GiB", Unified: true}).Machine(nil); err == nil {
		t.Error("unified VRAM above RAM accepted")
	}
}

func TestRequestRun(t *testing.T) {
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	r, err := Request{Model: "llama-3.1-8b-instruct"}.Run(mach)
	if err != nil || r.Quant != "Q4_K_M" || r.Context != 8192 || r.Verdict != VerdictGPU {
		t.Errorf("defaults: %+v %v", r, err)
	}
	r, err = Request{Model: "gpt-oss-20b"}.Run(mach)
	if err != nil || r.Quant != "MXFP4" {
		t.Errorf("gpt-oss default quant: %s %v", r.Quant, err)
	}
	if _, err := (Request{}).Run(mach); err == nil || !strings.Contains(err.Error(), "rehome models") {
		t.Errorf("no model: %v", err)
	}
	if _, err := (Request{Model: "x", GGUF: "y.gguf"}).Run(mach); err == nil {
		t.Error("model and file both accepted")
	}
	path, _, _, _ := tinyLlama(t, t.TempDir())
	if _, err := (Request{GGUF: path, Quant: "Q8_0"}).Run(mach); err == nil || !strings.Contains(err.Error(), "Q4_K_M") {
		t.Errorf("quant on a file: %v", err)
	}
	r, err = Request{GGUF: path, Context: 2048}.Run(mach)
	if err != nil || r.Quant != "Q4_K_M" || !strings.HasPrefix(r.ModelID, "gguf:") {
		t.Errorf("file: %+v %v", r, err)
	}
}
