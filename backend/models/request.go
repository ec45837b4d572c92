package models

import (
	"fmt"
	"strings"

	"rehome/backend/bytesize"
	"rehome/backend/hardware"
)

// Request is a fit question as the CLI and the UI ask it: a catalog model
// or a local .gguf file, a quantization, a context length and a KV cache
// type, on the detected machine or on memory given by hand.
type Request struct {
	Model   string `json:"model"`
	GGUF    string `json:"gguf,omitempty"`
	Quant   string `json:"quant,omitempty"`    // default: Q4_K_M, or what the model ships in
	Context int    `json:"context,omitempty"`  // default: 8192, or the model's maximum if smaller
	KVCache string `json:"kv_cache,omitempty"` // default: f16
	// VRAM and RAM plan a purchase ("24GiB", "64GB"); each one left out
	// comes from the detected machine.
	VRAM    string `json:"vram,omitempty"`
	RAM     string `json:"ram,omitempty"`
	GPUs    int    `json:"gpus,omitempty"`
	Unified bool   `json:"unified,omitempty"`
}

// MissingMemoryError is a fit that cannot be answered because memory it
// needs is unknown: not detected, and not given. Each face says how to
// give it (the CLI its flags, the UI its fields).
type MissingMemoryError struct {
	VRAM bool // the GPU's memory is missing
	RAM  bool // the system RAM is missing
}

// Error says which memory is unknown.
func (e *MissingMemoryError) Error() string {
	if e.VRAM {
		return "no machine to fit against: nothing was detected, and its VRAM and RAM were not given"
	}
	return "this machine's RAM is unknown: rehome could not read it"
}

// ByHand reports whether the request gives memory figures.
func (q Request) ByHand() bool { return q.VRAM != "" || q.RAM != "" }

// Machine is the memory the request is about: the detected machine, with
// any figure given by hand in its place. detected may be nil when both
// figures are given.
func (q Request) Machine(detected *hardware.Report) (Machine, error) {
	var base Machine
	if detected != nil {
		base = MachineFrom(*detected)
	}
	if !q.ByHand() {
		if detected == nil {
			return Machine{}, &MissingMemoryError{VRAM: true, RAM: true}
		}
		return base, nil
	}
	vram, ram := base.VRAMBytes, base.RAMBytes
	gpus, unified := base.GPUs, base.Unified
	if q.VRAM != "" {
		v, err := bytesize.Parse(q.VRAM)
		if err != nil {
			return Machine{}, fmt.Errorf("VRAM: %w", err)
		}
		vram, gpus, unified = v, q.GPUs, q.Unified
	}
	if q.RAM != "" {
		r, err := bytesize.Parse(q.RAM)
		if err != nil {
			return Machine{}, fmt.Errorf("RAM: %w", err)
		}
		ram = r
	}
	if ram == 0 {
		return Machine{}, &MissingMemoryError{RAM: true}
	}
	if unified && vram > ram {
		return Machine{}, fmt.Errorf("unified memory of %s cannot exceed the %s of RAM it is part of", bytesize.Format(vram), bytesize.Format(ram))
	}
	return ManualMachine(vram, ram, gpus, unified), nil
}

// Resolve finds the model and its weights: from the catalog, or from the
// GGUF file's header.
func (q Request) Resolve() (Model, Layout, error) {
	if q.GGUF != "" {
		if q.Model != "" {
			return Model{}, Layout{}, fmt.Errorf("give a catalog model or a .gguf file, not both")
		}
		m, l, err := FromGGUF(q.GGUF)
		if err != nil {
			return Model{}, Layout{}, err
		}
		if q.Quant != "" && !strings.EqualFold(q.Quant, l.Quant) {
			return Model{}, Layout{}, fmt.Errorf("%s is quantized as %s; a quantization can be chosen for catalog models only", q.GGUF, l.Quant)
		}
		return m, l, nil
	}
	if strings.TrimSpace(q.Model) == "" {
		return Model{}, Layout{}, fmt.Errorf("name a model (`rehome models` lists them) or give a .gguf file")
	}
	m, err := Lookup(q.Model)
	if err != nil {
		return Model{}, Layout{}, err
	}
	quant := q.Quant
	if quant == "" {
		quant = DefaultQuant(m)
	}
	l, err := m.Layout(quant)
	if err != nil {
		return Model{}, Layout{}, err
	}
	return m, l, nil
}

// DefaultQuant is Q4_K_M, or the first quantization the model ships in.
func DefaultQuant(m Model) string {
	if containsFold(m.Quants, "Q4_K_M") {
		return "Q4_K_M"
	}
	return m.Quants[0]
}

// Run answers the request on mach.
func (q Request) Run(mach Machine) (FitResult, error) {
	m, l, err := q.Resolve()
	if err != nil {
		return FitResult{}, err
	}
	return FitLayout(m, l, Options{Context: q.Context, KVCache: q.KVCache}, mach)
}
