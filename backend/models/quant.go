package models

import (
	"fmt"
	"sort"
	"strings"
)

// ggmlType is how ggml stores one tensor: blockSize weights in blockBytes.
type ggmlType struct {
	blockSize  int64
	blockBytes int64
}

// ggmlTypes are the storage types of llama.cpp (ggml-common.h block sizes).
var ggmlTypes = map[string]ggmlType{
	"F32": {1, 4}, "F16": {1, 2}, "BF16": {1, 2},
	"Q8_0": {32, 34}, "Q5_0": {32, 22}, "Q5_1": {32, 24}, "Q4_0": {32, 18}, "Q4_1": {32, 20},
	"IQ4_NL": {32, 18}, "MXFP4": {32, 17},
	"Q6_K": {256, 210}, "Q5_K": {256, 176}, "Q4_K": {256, 144}, "Q3_K": {256, 110}, "Q2_K": {256, 84},
	"IQ4_XS": {256, 136}, "IQ3_S": {256, 110}, "IQ3_XXS": {256, 98}, "IQ2_S": {256, 82},
	"IQ2_XS": {256, 74}, "IQ2_XXS": {256, 66},
}

// bytesOf is the storage of n weights in type t.
func bytesOf(t string, n int64) int64 {
	g := ggmlTypes[t]
	return (n + g.blockSize - 1) / g.blockSize * g.blockBytes
}

// scheme is a llama.cpp file type: what `llama-quantize` is asked for.
type scheme struct {
	base    string  // the type most tensors get
	quality float64 // rough share of F16 quality kept, only for ranking
	about   string
}

var schemes = map[string]scheme{
	"F16":    {"F16", 1.00, "16-bit, the unquantized weights"},
	"Q8_0":   {"Q8_0", 1.00, "8-bit, practically lossless"},
	"Q6_K":   {"Q6_K", 0.995, "6-bit, near lossless"},
	"Q5_K_M": {"Q5_K", 0.99, "5-bit, high quality"},
	"Q4_K_M": {"Q4_K", 0.97, "4-bit, the usual default"},
	"Q4_K_S": {"Q4_K", 0.96, "4-bit, a little smaller than Q4_K_M"},
	"IQ4_XS": {"IQ4_XS", 0.96, "4-bit i-quant, smaller than Q4_K_M"},
	"Q3_K_M": {"Q3_K", 0.90, "3-bit, noticeably weaker"},
	"Q2_K":   {"Q2_K", 0.80, "2-bit, large quality loss"},
	"IQ2_XS": {"IQ2_XS", 0.75, "2-bit i-quant, last resort"},
	"MXFP4":  {"Q8_0", 0.98, "gpt-oss's native 4-bit experts, other tensors Q8_0"},
}

// QuantInfo describes a quantization for the UI.
type QuantInfo struct {
	Name  string `json:"name"`
	About string `json:"about"`
}

// Quants lists the quantizations rehome can estimate, largest first.
func Quants() []QuantInfo {
	order := []string{"F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_K_S", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XS", "MXFP4"}
	out := make([]QuantInfo, len(order))
	for i, n := range order {
		out[i] = QuantInfo{n, schemes[n].about}
	}
	return out
}

// NormalizeQuant accepts any case ("q4_k_m") and returns the canonical name.
func NormalizeQuant(q string) (string, error) {
	u := strings.ToUpper(strings.TrimSpace(q))
	if _, ok := schemes[u]; ok {
		return u, nil
	}
	names := make([]string, 0, len(schemes))
	for n := range schemes {
		names = append(names, n)
	}
	sort.Strings(names)
	return "", fmt.Errorf("unknown quantization %q: use one of %s", q, strings.Join(names, ", "))
}

// tensor is one weight tensor of a model, as a GGUF file names it.
type tensor struct {
	name   string // without the "blk.N." prefix
	layer  int    // -1 outside the repeating blocks
	params int64
	ne0    int64 // row length; 0 for 1-D tensors, which stay F32
	expert bool  // a routed-expert tensor of a mixture of experts
}

// eachTensor calls fn for each of the model's tensors as llama.cpp's
// converter writes them. Their parameters add up to the published count
// exactly (see the tests).
func (m Model) eachTensor(fn func(tensor)) {
	h, nh, kv, hd := u(m.HiddenSize), u(m.Heads), u(m.KVHeads), u(m.HeadDim)
	v, ff := u(m.VocabSize), u(m.IntermediateSize)
	fn(tensor{name: "token_embd", layer: -1, params: v * h, ne0: h})
	if !m.TiedEmbeddings {
		fn(tensor{name: "output", layer: -1, params: v * h, ne0: h})
	}
	fn(tensor{name: "output_norm", layer: -1, params: h})
	for i := 0; i < m.Layers; i++ {
		add := func(name string, params, ne0 int64, expert bool) {
			fn(tensor{name: name, layer: i, params: params, ne0: ne0, expert: expert})
		}
		add("attn_norm", h, 0, false)
		if m.Arch == "phi3" {
			add("attn_qkv", h*(nh+2*kv)*hd, h, false)
		} else {
			add("attn_q", h*nh*hd, h, false)
			add("attn_k", h*kv*hd, h, false)
			add("attn_v", h*kv*hd, h, false)
		}
		add("attn_output", nh*hd*h, nh*hd, false)
		if m.QKVBias || m.Arch == "gpt-oss" {
			add("attn_qkv_bias", (nh+2*kv)*hd, 0, false)
		}
		if m.Arch == "gpt-oss" {
			add("attn_output_bias", h, 0, false)
			add("attn_sinks", nh, 0, false)
		}
		if m.QKNorm {
			add("attn_q_norm", hd, 0, false)
			add("attn_k_norm", hd, 0, false)
		}
		if m.Arch == "gemma2" || m.Arch == "gemma3" {
			add("post_attention_norm", h, 0, false)
			add("post_ffw_norm", h, 0, false)
		}
		add("ffn_norm", h, 0, false)
		switch {
		case m.Experts > 0:
			e, eff := u(m.Experts), u(m.ExpertIntermediateSize)
			add("ffn_gate_inp", h*e, 0, false) // the router stays F32
			add("ffn_gate_exps", e*h*eff, h, true)
			add("ffn_up_exps", e*h*eff, h, true)
			add("ffn_down_exps", e*eff*h, eff, true)
			if m.Arch == "gpt-oss" {
				add("ffn_gate_inp_bias", e, 0, false)
				add("ffn_exps_bias", e*(2*eff+h), 0, false)
			}
		case m.Arch == "phi3":
			add("ffn_up", h*2*ff, h, false) // gate and up, fused
			add("ffn_down", ff*h, ff, false)
		default:
			add("ffn_gate", h*ff, h, false)
			add("ffn_up", h*ff, h, false)
			add("ffn_down", ff*h, ff, false)
		}
	}
}

func u(n int) int64 { return int64(n) }

// useMoreBits is llama.cpp's choice of layers that get a larger type under
// the _M schemes: the first and last eighth, and every third in between.
func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// is70B reports whether llama.cpp's loader types the model LLM_TYPE_70B,
// which llama_tensor_get_type keys the attn_v upgrade on: 80-layer llama
// models with grouped-query attention (with as many KV heads as heads it is
// LLaMA 1's 65B) and 80-layer qwen2 and qwen2vl models (Qwen2.5-72B),
// as load_hparams in llama.cpp's src/llama-model.cpp sets it.
func (m Model) is70B() bool {
	switch m.Arch {
	case "llama":
		return m.Layers == 80 && m.Heads != m.KVHeads
	case "qwen2", "qwen2vl":
		return m.Layers == 80
	}
	return false
}

// fallback is what llama.cpp uses when a row length is not a multiple of a
// k-quant's 256-weight block.
var fallback = map[string]string{
	"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0",
	"Q2_K": "IQ4_NL", "Q3_K": "IQ4_NL", "IQ4_XS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ3_XXS": "IQ4_NL",
	"IQ2_XS": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_S": "IQ4_NL",
}

// Layout is where a model's weight bytes are: the token embeddings (which
// llama.cpp keeps in system RAM), the output head, each layer, and the
// GGUF metadata in front of them.
type Layout struct {
	Quant          string  `json:"quant"`
	TokenEmbdBytes int64   `json:"token_embd_bytes"`
	OutputBytes    int64   `json:"output_bytes"` // output head and final norm
	LayerBytes     []int64 `json:"layer_bytes"`
	// HeaderBytes estimates the metadata (tokenizer above all) in a file.
	HeaderBytes int64 `json:"header_bytes"`
	// ByType is the weight bytes per storage type, for the breakdown.
	ByType map[string]int64 `json:"by_type"`
	// Exact is true when the sizes were read from a GGUF file.
	Exact bool `json:"exact"`
}

// WeightBytes is every tensor's data: what a runtime loads.
func (l Layout) WeightBytes() int64 {
	s := l.TokenEmbdBytes + l.OutputBytes
	for _, b := range l.LayerBytes {
		s += b
	}
	return s
}

// FileBytes estimates the size of the .gguf file.
func (l Layout) FileBytes() int64 { return l.WeightBytes() + l.HeaderBytes }

// headerBytesPerToken approximates the GGUF metadata per vocabulary entry
// (token text, score, type, and the BPE merges), measured on Llama 3 and
// Qwen2.5 files.
const headerBytesPerToken = 64

// Layout computes where the weights go under quantization q.
func (m Model) Layout(q string) (Layout, error) {
	q, err := NormalizeQuant(q)
	if err != nil {
		return Layout{}, err
	}
	if !containsFold(m.Quants, q) {
		return Layout{}, fmt.Errorf("%s is not published in %s; its quantizations are %s", m.ID, q, strings.Join(m.Quants, ", "))
	}
	l := Layout{Quant: q, LayerBytes: make([]int64, m.Layers), ByType: map[string]int64{}, HeaderBytes: u(m.VocabSize) * headerBytesPerToken}
	m.eachTensor(func(t tensor) {
		typ := m.typeFor(q, t)
		b := bytesOf(typ, t.params)
		l.ByType[typ] += b
		switch {
		case t.layer >= 0:
			l.LayerBytes[t.layer] += b
		case t.name == "token_embd":
			l.TokenEmbdBytes += b
		default:
			l.OutputBytes += b
		}
	})
	return l, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
