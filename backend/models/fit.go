package models

import (
	"fmt"
	"sort"
	"strings"

	"rehome/backend/bytesize"
)

// KV cache element types llama.cpp offers (--cache-type-k/-v), as block
// size and bytes per block.
var kvTypes = map[string]ggmlType{
	"f16":  {1, 2},
	"q8_0": {32, 34},
	"q4_0": {32, 18},
}

// KVCacheTypes lists the KV cache types, largest first.
func KVCacheTypes() []string { return []string{"f16", "q8_0", "q4_0"} }

// Fixed figures of the estimate, each shown to the user with its term.
const (
	// UBatch is llama.cpp's default physical batch (-ub 512).
	UBatch = 512
	// gpuOverhead is per GPU: the driver context (CUDA, ROCm, Metal)
	// and the allocator's slack.
	gpuOverhead = 512 << 20
	// cpuOverhead is the runtime itself, tokenizer and host buffers.
	cpuOverhead = 256 << 20
	// ramReserveMin and ramReserveShare keep memory for the OS and the
	// user's other programs: the larger of 2 GiB and a tenth of RAM.
	ramReserveMin   = 2 << 30
	ramReserveShare = 10
	// swaPad rounds a sliding-window cache as llama.cpp does.
	swaPad = 256
)

// Options are the run settings of an estimate.
type Options struct {
	Context int    `json:"context"`  // tokens
	KVCache string `json:"kv_cache"` // f16 (default), q8_0, q4_0
}

// Verdicts, from best to worst.
const (
	VerdictGPU     = "gpu"     // fits fully in VRAM
	VerdictPartial = "partial" // some layers on the GPU, the rest in RAM
	VerdictCPU     = "cpu"     // runs on the CPU from RAM
	VerdictNone    = "none"    // does not fit in memory at all
)

// Term is one line of the arithmetic.
type Term struct {
	Key     string `json:"key"`
	Label   string `json:"label"`
	Bytes   int64  `json:"bytes"`
	Formula string `json:"formula"`
}

// FitResult is the estimate of one model at one quantization and context
// on one machine, with every term and the verdict.
type FitResult struct {
	ModelID   string `json:"model_id"`
	ModelName string `json:"model_name"`
	Quant     string `json:"quant"`
	Context   int    `json:"context"`
	KVCache   string `json:"kv_cache"`

	WeightsBytes  int64 `json:"weights_bytes"`
	KVCacheBytes  int64 `json:"kv_cache_bytes"`
	ComputeBytes  int64 `json:"compute_bytes"`
	OverheadBytes int64 `json:"overhead_bytes"`
	VisionBytes   int64 `json:"vision_bytes"`
	TotalBytes    int64 `json:"total_bytes"`
	// FileBytes estimates the .gguf download; CarryFile is that file's
	// name (see CarryFile).
	FileBytes int64  `json:"file_bytes"`
	CarryFile string `json:"carry_file"`
	Terms     []Term `json:"terms"`

	Verdict     string `json:"verdict"`
	VerdictText string `json:"verdict_text"`
	Layers      int    `json:"layers"`
	LayersOnGPU int    `json:"layers_on_gpu"`
	// VRAMNeededBytes and RAMNeededBytes split the total for the verdict.
	VRAMNeededBytes int64 `json:"vram_needed_bytes"`
	RAMNeededBytes  int64 `json:"ram_needed_bytes"`
	// MaxContext is the largest context that still fits fully in VRAM (or,
	// without a GPU, in RAM), up to the model's own limit; 0 when none does.
	MaxContext   int      `json:"max_context"`
	MaxContextIn string   `json:"max_context_in"` // "vram" or "ram"
	Machine      Machine  `json:"machine"`
	Notes        []string `json:"notes"`
	// CPUSpeed estimates tokens/s when the model runs on the CPU alone
	// (verdict "cpu"), from the bytes a token reads; absent otherwise.
	CPUSpeed *CPUSpeed `json:"cpu_speed,omitempty"`
}

// Fit estimates model m at quantization q on machine mach.
func Fit(m Model, q string, opts Options, mach Machine) (FitResult, error) {
	l, err := m.Layout(q)
	if err != nil {
		return FitResult{}, err
	}
	return FitLayout(m, l, opts, mach)
}

// FitLayout is Fit with the weights given (from a GGUF file).
func FitLayout(m Model, l Layout, opts Options, mach Machine) (FitResult, error) {
	if err := opts.check(m); err != nil {
		return FitResult{}, err
	}
	r := evaluate(m, l, opts, mach)
	r.Terms = terms(m, l, opts, r, mach)
	r.CPUSpeed = cpuSpeed(m, r)
	r.MaxContext, r.MaxContextIn = maxContext(m, l, opts, mach)
	if opts.Context > m.MaxContext {
		r.Notes = append(r.Notes, fmt.Sprintf("%d tokens is beyond the %d the model was trained for: quality drops past it unless rope scaling is configured.", opts.Context, m.MaxContext))
	}
	if opts.KVCache != "f16" {
		r.Notes = append(r.Notes, "A quantized KV cache needs flash attention (llama.cpp -fa on); quality drops slightly, most with q4_0.")
	}
	if m.Notes != "" {
		r.Notes = append(r.Notes, m.Notes)
	}
	return r, nil
}

func (o *Options) check(m Model) error {
	if o.Context == 0 {
		o.Context = min(8192, m.MaxContext)
	}
	if o.Context < 0 || o.Context > 10_000_000 {
		return fmt.Errorf("context %d tokens is out of range: give a number of tokens such as 8192", o.Context)
	}
	if o.KVCache == "" {
		o.KVCache = "f16"
	}
	o.KVCache = strings.ToLower(o.KVCache)
	if _, ok := kvTypes[o.KVCache]; !ok {
		return fmt.Errorf("unknown KV cache type %q: use f16, q8_0 or q4_0", o.KVCache)
	}
	return nil
}

// KVCacheBytes is the KV cache of m for ctx tokens: for every layer, keys
// and values of every KV head, each head_dim elements of type kv. Sliding-
// window layers keep only their window plus one batch, as llama.cpp does.
// It also returns the per-layer figures.
func KVCacheBytes(m Model, ctx int, kv string) (int64, []int64) {
	t := kvTypes[kv]
	per := make([]int64, m.Layers)
	var total int64
	swaTokens := swaTokens(m, ctx)
	for i := range per {
		tokens := u(ctx)
		if m.isSWA(i) {
			tokens = u(swaTokens)
		}
		elems := 2 * tokens * u(m.KVHeads) * u(m.HeadDim)
		per[i] = (elems + t.blockSize - 1) / t.blockSize * t.blockBytes
		total += per[i]
	}
	return total, per
}

func (m Model) isSWA(i int) bool {
	if m.swaLayers != nil {
		return i < len(m.swaLayers) && m.swaLayers[i]
	}
	return i < m.SlidingWindowLayers
}

func swaTokens(m Model, ctx int) int {
	if m.SlidingWindow == 0 {
		return ctx
	}
	padded := (m.SlidingWindow + UBatch + swaPad - 1) / swaPad * swaPad
	return min(ctx, padded)
}

// computeBytes approximates llama.cpp's compute buffer with flash
// attention: f32 activations of one 512-token batch, dominated by the
// logits over the vocabulary.
func computeBytes(m Model) int64 {
	ff := m.IntermediateSize
	if m.Experts > 0 {
		ff = m.ExpertIntermediateSize * m.ExpertsUsed
	}
	return 4 * UBatch * u(m.VocabSize+ff+2*m.HiddenSize)
}

// evaluate computes the terms and the verdict for one context.
func evaluate(m Model, l Layout, o Options, mach Machine) FitResult {
	r := FitResult{
		ModelID: m.ID, ModelName: m.Name, Quant: l.Quant, Context: o.Context, KVCache: o.KVCache,
		Layers: m.Layers, Machine: mach, Notes: []string{},
	}
	kv, kvLayer := KVCacheBytes(m, o.Context, o.KVCache)
	r.WeightsBytes = l.WeightBytes()
	r.FileBytes = l.FileBytes()
	r.CarryFile = CarryFile(m, l.Quant)
	r.KVCacheBytes = kv
	r.ComputeBytes = computeBytes(m)
	r.VisionBytes = m.ParamsVision * 2 // the mmproj file, F16
	gpu := mach.GPUs > 0 && mach.VRAMBytes > 0
	if gpu {
		r.OverheadBytes = int64(gpuOverhead) * u(mach.GPUs)
	} else {
		r.OverheadBytes = cpuOverhead
	}
	r.TotalBytes = r.WeightsBytes + r.KVCacheBytes + r.ComputeBytes + r.OverheadBytes + r.VisionBytes

	usable := mach.UsableRAM()
	if gpu && fitGPU(&r, m, l, mach, kvLayer) {
		return r
	}
	cpuTotal := r.WeightsBytes + r.KVCacheBytes + r.ComputeBytes + cpuOverhead + r.VisionBytes
	if cpuTotal <= usable {
		r.Verdict, r.RAMNeededBytes = VerdictCPU, cpuTotal
		r.VerdictText = "CPU only: runs from system RAM, several times slower than on a GPU"
		if gpu {
			r.VerdictText = "CPU only: not even one layer fits in VRAM; runs from system RAM, slowly"
		}
		return r
	}
	r.Verdict, r.RAMNeededBytes = VerdictNone, cpuTotal
	if gpu {
		r.VerdictText = fmt.Sprintf("Does not fit in memory: needs %s, the machine has %s VRAM and %s of usable RAM",
			bytesize.Format(r.TotalBytes), bytesize.Format(mach.VRAMBytes), bytesize.Format(usable))
	} else {
		r.VerdictText = fmt.Sprintf("Does not fit in memory: needs %s, the machine has %s of usable RAM", bytesize.Format(cpuTotal), bytesize.Format(usable))
	}
	return r
}

// fitGPU says whether the model fits on the machine's GPUs, fully or
// with some layers offloaded, and fills r if so.
func fitGPU(r *FitResult, m Model, l Layout, mach Machine, kvLayer []int64) bool {
	usable := mach.UsableRAM()
	// Each GPU holds whole layers and its own compute buffer: with
	// several, up to a layer per extra GPU is lost to the split.
	budget := mach.VRAMBytes
	gpuCompute := r.ComputeBytes * u(mach.GPUs)
	if mach.GPUs > 1 {
		var largest int64
		for i := range l.LayerBytes {
			largest = max(largest, l.LayerBytes[i]+kvLayer[i])
		}
		budget -= min(budget, largest*u(mach.GPUs-1)+gpuCompute-r.ComputeBytes)
	}
	// Everything but the token embeddings (always in RAM) on the GPU.
	full := r.TotalBytes - l.TokenEmbdBytes
	if full <= budget && l.TokenEmbdBytes+ramSide(mach, full) <= usable {
		r.Verdict, r.LayersOnGPU = VerdictGPU, m.Layers
		r.VRAMNeededBytes, r.RAMNeededBytes = full, l.TokenEmbdBytes
		r.VerdictText = "Fits fully in VRAM"
		if mach.Unified {
			r.VerdictText = "Fits fully in the GPU's share of unified memory"
		}
		if float64(full) > 0.95*float64(mach.VRAMBytes) {
			r.Notes = append(r.Notes, fmt.Sprintf("Tight: %s of %s VRAM, under 5%% to spare. Close other programs that use the GPU, or pick a smaller context or quantization.",
				bytesize.Format(full), bytesize.Format(mach.VRAMBytes)))
		}
		return true
	}
	// llama.cpp offloads the last N layers; the output head joins them
	// only with all layers, so here it stays in RAM.
	onGPU := r.ComputeBytes + r.OverheadBytes + r.VisionBytes
	n := 0
	for i := m.Layers - 1; i >= 0; i-- {
		if onGPU+l.LayerBytes[i]+kvLayer[i] > budget {
			break
		}
		onGPU += l.LayerBytes[i] + kvLayer[i]
		n++
	}
	if n > 0 {
		inRAM := l.TokenEmbdBytes + l.OutputBytes + r.ComputeBytes
		for i := 0; i < m.Layers-n; i++ {
			inRAM += l.LayerBytes[i] + kvLayer[i]
		}
		if inRAM+ramSide(mach, onGPU) <= usable {
			r.Verdict, r.LayersOnGPU = VerdictPartial, n
			r.VRAMNeededBytes, r.RAMNeededBytes = onGPU, inRAM
			r.VerdictText = fmt.Sprintf("Fits with %d of %d layers offloaded to the GPU (the other %d in RAM, slower)", n, m.Layers, m.Layers-n)
			return true
		}
	}
	return false
}

// quickFit is Fit without the search for the largest context: for trying
// many quantizations.
func quickFit(m Model, q string, opts Options, mach Machine) (FitResult, error) {
	l, err := m.Layout(q)
	if err != nil {
		return FitResult{}, err
	}
	if err := opts.check(m); err != nil {
		return FitResult{}, err
	}
	r := evaluate(m, l, opts, mach)
	r.Terms = terms(m, l, opts, r, mach)
	r.CPUSpeed = cpuSpeed(m, r)
	return r, nil
}

// ramSide is what the GPU's part costs in system RAM: nothing for a
// dedicated card, itself on unified memory (one pool).
func ramSide(mach Machine, onGPU int64) int64 {
	if mach.Unified {
		return onGPU
	}
	return 0
}

// maxContext finds the largest context (a multiple of 256) that fits fully
// in VRAM, or in RAM on a machine without a GPU, up to the model's limit.
func maxContext(m Model, l Layout, o Options, mach Machine) (int, string) {
	want, where := VerdictCPU, "ram"
	if mach.GPUs > 0 && mach.VRAMBytes > 0 {
		want, where = VerdictGPU, "vram"
	}
	fits := func(ctx int) bool {
		o.Context = ctx
		return evaluate(m, l, o, mach).Verdict == want
	}
	lo, hi := 0, m.MaxContext/256 // in units of 256 tokens
	if hi == 0 || !fits(256) {
		return 0, where
	}
	if fits(m.MaxContext) {
		return m.MaxContext, where
	}
	lo = 1
	for lo < hi-1 {
		mid := (lo + hi) / 2
		if fits(mid * 256) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo * 256, where
}

func terms(m Model, l Layout, o Options, r FitResult, mach Machine) []Term {
	var types []string
	for t := range l.ByType {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return l.ByType[types[i]] > l.ByType[types[j]] })
	var parts []string
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%s %s", t, bytesize.Format(l.ByType[t])))
	}
	how := fmt.Sprintf("%s parameters quantized tensor by tensor with llama.cpp's %s rules", fmtParams(m.ParamsText), l.Quant)
	if l.Exact {
		how = "tensor sizes read from the GGUF file"
	}
	weights := Term{"weights", "Weights (" + l.Quant + ")", r.WeightsBytes,
		fmt.Sprintf("%s: %s; the %s token-embedding table stays in RAM", how, strings.Join(parts, " + "), bytesize.Format(l.TokenEmbdBytes))}

	elem := map[string]string{"f16": "2 bytes (f16)", "q8_0": "34/32 bytes (q8_0)", "q4_0": "18/32 bytes (q4_0)"}[o.KVCache]
	full := m.Layers - m.SlidingWindowLayers
	kvText := fmt.Sprintf("2 (K and V) × %d layers × %d tokens × %d KV heads × %d head dim × %s", full, o.Context, m.KVHeads, m.HeadDim, elem)
	if m.SlidingWindowLayers > 0 {
		kvText = fmt.Sprintf("%s, plus 2 × %d sliding-window layers × %d tokens (window %d + one batch) × %d × %d × %s",
			kvText, m.SlidingWindowLayers, swaTokens(m, o.Context), m.SlidingWindow, m.KVHeads, m.HeadDim, elem)
	}
	kv := Term{"kv_cache", "KV cache (" + o.KVCache + ", " + fmt.Sprint(o.Context) + " tokens)", r.KVCacheBytes, kvText}

	ff := fmt.Sprintf("%d FFN", m.IntermediateSize)
	if m.Experts > 0 {
		ff = fmt.Sprintf("%d active experts × %d FFN", m.ExpertsUsed, m.ExpertIntermediateSize)
	}
	compute := Term{"compute", "Compute buffer", r.ComputeBytes,
		fmt.Sprintf("4 bytes × %d-token batch × (%d vocab + %s + 2 × %d hidden): llama.cpp's activations with flash attention", UBatch, m.VocabSize, ff, m.HiddenSize)}
	over := Term{"overhead", "Runtime overhead", r.OverheadBytes, "256 MiB: the runtime, tokenizer and host buffers (no GPU)"}
	if mach.GPUs > 0 && mach.VRAMBytes > 0 {
		over.Formula = fmt.Sprintf("512 MiB × %s: driver context (CUDA, ROCm or Metal) and allocator slack", gpuCount(mach.GPUs))
	}
	out := []Term{weights, kv, compute, over}
	if r.VisionBytes > 0 {
		out = append(out, Term{"vision", "Vision encoder (mmproj)", r.VisionBytes,
			fmt.Sprintf("%s vision parameters × 2 bytes (F16 mmproj file)", fmtParams(m.ParamsVision))})
	}
	out = append(out, Term{"total", "Total", r.TotalBytes, "the sum of the lines above"})
	return out
}

func fmtParams(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprint(n)
}
