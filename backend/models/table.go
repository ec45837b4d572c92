package models

import (
	"fmt"

	"rehome/backend/hardware"
)

// TableRequest asks for the fit of every catalog model at one context, on
// the detected machine or on memory given by hand.
type TableRequest struct {
	Context int    `json:"context,omitempty"`  // default 8192
	KVCache string `json:"kv_cache,omitempty"` // default f16
	// Quant is one quantization for every model, or "" (auto): per model
	// the best quantization that fits fully, else the default one.
	Quant   string `json:"quant,omitempty"`
	VRAM    string `json:"vram,omitempty"`
	RAM     string `json:"ram,omitempty"`
	GPUs    int    `json:"gpus,omitempty"`
	Unified bool   `json:"unified,omitempty"`
	Best    int    `json:"best,omitempty"` // how many to rank, default 5
}

// Machine resolves the memory the table is about (see Request.Machine).
func (t TableRequest) Machine(detected *hardware.Report) (Machine, error) {
	return Request{VRAM: t.VRAM, RAM: t.RAM, GPUs: t.GPUs, Unified: t.Unified}.Machine(detected)
}

// Row is one model in the table.
type Row struct {
	Model  Model     `json:"model"`
	Result FitResult `json:"result"`
}

// Table is the fit of every model and the ranked best ones.
type Table struct {
	Machine Machine `json:"machine"`
	Context int     `json:"context"`
	KVCache string  `json:"kv_cache"`
	Quant   string  `json:"quant"` // "auto" or the one asked for
	Rows    []Row   `json:"rows"`
	Best    []Pick  `json:"best"`
}

// BuildTable fits every model of all on mach.
func BuildTable(all []Model, req TableRequest, mach Machine) (Table, error) {
	if req.Context == 0 {
		req.Context = 8192
	}
	if req.Context < 0 {
		return Table{}, fmt.Errorf("context %d: give a positive number of tokens", req.Context)
	}
	if req.KVCache == "" {
		req.KVCache = "f16"
	}
	if _, ok := kvTypes[req.KVCache]; !ok {
		return Table{}, fmt.Errorf("unknown KV cache type %q: use f16, q8_0 or q4_0", req.KVCache)
	}
	quant := "auto"
	if req.Quant != "" && req.Quant != "auto" {
		q, err := NormalizeQuant(req.Quant)
		if err != nil {
			return Table{}, err
		}
		quant = q
	}
	if req.Best <= 0 {
		req.Best = 5
	}
	t := Table{Machine: mach, Context: req.Context, KVCache: req.KVCache, Quant: quant, Rows: []Row{}}
	want := VerdictCPU
	if mach.GPUs > 0 && mach.VRAMBytes > 0 {
		want = VerdictGPU
	}
	for _, m := range all {
		opts := Options{Context: min(req.Context, m.MaxContext), KVCache: req.KVCache}
		var res FitResult
		var err error
		switch {
		case quant != "auto" && containsFold(m.Quants, quant):
			res, err = Fit(m, quant, opts, mach)
		case quant != "auto":
			continue // the model is not published in this quantization
		default:
			res, err = autoFit(m, opts, mach, want)
		}
		if err != nil {
			return Table{}, fmt.Errorf("%s: %w", m.ID, err)
		}
		t.Rows = append(t.Rows, Row{Model: m, Result: res})
	}
	t.Best = Best(all, mach, req.Context, req.Best)
	if t.Best == nil {
		t.Best = []Pick{}
	}
	return t, nil
}

// autoFit picks the best quantization that fits as wanted, else the
// model's default quantization, whatever its verdict.
func autoFit(m Model, opts Options, mach Machine, want string) (FitResult, error) {
	for _, q := range bestQuants {
		if !containsFold(m.Quants, q) {
			continue
		}
		r, err := quickFit(m, q, opts, mach)
		if err != nil {
			return FitResult{}, err
		}
		if r.Verdict == want {
			return Fit(m, q, opts, mach)
		}
	}
	return Fit(m, DefaultQuant(m), opts, mach)
}
