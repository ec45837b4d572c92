package models

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed catalog.json
var catalogJSON []byte

// Model is one open-weight model and the figures of its architecture.
type Model struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Family    string `json:"family"`
	Publisher string `json:"publisher"`
	// Arch is the llama.cpp architecture name (llama, qwen2, qwen3,
	// qwen3moe, gemma2, gemma3, phi3, gpt-oss, qwen2vl).
	Arch             string `json:"arch"`
	Layers           int    `json:"layers"`
	HiddenSize       int    `json:"hidden_size"`
	IntermediateSize int    `json:"intermediate_size"`
	Heads            int    `json:"heads"`
	KVHeads          int    `json:"kv_heads"`
	HeadDim          int    `json:"head_dim"`
	VocabSize        int    `json:"vocab_size"`
	TiedEmbeddings   bool   `json:"tied_embeddings"`
	QKVBias          bool   `json:"qkv_bias"`
	QKNorm           bool   `json:"qk_norm"`
	// Mixture of experts: experts per layer, experts used per token and
	// each expert's feed-forward size. Zero for dense models.
	Experts                int `json:"experts"`
	ExpertsUsed            int `json:"experts_used"`
	ExpertIntermediateSize int `json:"expert_intermediate_size"`
	// SlidingWindow is the attention window of SlidingWindowLayers layers
	// (Gemma, gpt-oss); the other layers attend to the whole context.
	SlidingWindow       int `json:"sliding_window"`
	SlidingWindowLayers int `json:"sliding_window_layers"`
	MaxContext          int `json:"max_context"`
	// ParamsTotal is the published parameter count, vision encoder included.
	ParamsTotal uint64 `json:"params_total"`
	// ParamsText is computed from the figures above; ParamsActive is what
	// is read for each token (all of a dense model, the used experts of a
	// mixture of experts, without the embedding lookup); ParamsVision is
	// what the published count has beyond the text model.
	ParamsText   uint64   `json:"params_text"`
	ParamsActive uint64   `json:"params_active"`
	ParamsVision uint64   `json:"params_vision"`
	Quants       []string `json:"quants"`
	Tags         []string `json:"tags"`
	// Tools: the model does tool (function) calling, so it can call an
	// assistant's actions itself. Vision: it reads images itself (through
	// its vision encoder, the mmproj file).
	Tools  bool `json:"tools"`
	Vision bool `json:"vision"`
	// Ollama is the Ollama library tag people pull the model by (what
	// `ollama pull` and a Modelfile's FROM take), "" when there is none.
	// Library tags hold a 4-bit build (Q4_K_M, or Q4_0 for older models;
	// gpt-oss ships MXFP4).
	Ollama  string `json:"ollama"`
	License string `json:"license"`
	Source  string `json:"source"`
	Notes   string `json:"notes,omitempty"`
	// FromFile is the .gguf path when the model was read from a file.
	FromFile string `json:"from_file,omitempty"`

	// swaLayers marks the sliding-window layers when a GGUF file says
	// which; otherwise the first SlidingWindowLayers are counted as such
	// (the totals are the same).
	swaLayers []bool
}

// MoE reports whether the model is a mixture of experts.
func (m Model) MoE() bool { return m.Experts > 0 }

var ollamaTagRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*:[a-zA-Z0-9._-]+$`)

// DefaultQuants are the quantizations people download for most models,
// from largest to smallest.
var DefaultQuants = []string{"F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XS"}

type catalogFile struct {
	Schema int     `json:"schema"`
	Models []Model `json:"models"`
}

var (
	catalogOnce sync.Once
	catalog     []Model
	catalogErr  error
)

// Catalog returns every model in the embedded catalog, in catalog order.
// The slice is a copy.
func Catalog() ([]Model, error) {
	catalogOnce.Do(func() { catalog, catalogErr = parseCatalog(catalogJSON) })
	if catalogErr != nil {
		return nil, catalogErr
	}
	out := make([]Model, len(catalog))
	for i, m := range catalog {
		m.Quants = slices.Clone(m.Quants)
		m.Tags = slices.Clone(m.Tags)
		out[i] = m
	}
	return out, nil
}

// Lookup returns the catalog model with this id (case-insensitive). An
// unknown id gets an error naming the closest ids.
func Lookup(id string) (Model, error) {
	all, err := Catalog()
	if err != nil {
		return Model{}, err
	}
	want := strings.ToLower(strings.TrimSpace(id))
	for _, m := range all {
		if m.ID == want {
			return m, nil
		}
	}
	var near []string
	for _, m := range all {
		if strings.Contains(m.ID, want) || (len(want) >= 4 && strings.Contains(want, m.ID[:min(len(m.ID), 8)])) {
			near = append(near, m.ID)
		}
	}
	sort.Strings(near)
	if len(near) > 0 {
		return Model{}, fmt.Errorf("no model %q in the catalog; did you mean %s? (`rehome models` lists them)", id, strings.Join(near, ", "))
	}
	return Model{}, fmt.Errorf("no model %q in the catalog: `rehome models` lists them, or give a local file with --gguf", id)
}

func parseCatalog(data []byte) ([]Model, error) {
	var f catalogFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	seen := map[string]bool{}
	for i := range f.Models {
		m := &f.Models[i]
		if err := m.complete(); err != nil {
			return nil, fmt.Errorf("catalog entry %d (%s): %w", i, m.ID, err)
		}
		if seen[m.ID] {
			return nil, fmt.Errorf("catalog: duplicate id %q", m.ID)
		}
		seen[m.ID] = true
	}
	return f.Models, nil
}

// complete checks the figures and fills in the computed ones.
func (m *Model) complete() error {
	switch {
	case m.ID == "" || m.Name == "":
		return fmt.Errorf("needs an id and a name")
	case m.Layers <= 0 || m.HiddenSize <= 0 || m.Heads <= 0 || m.KVHeads <= 0 || m.HeadDim <= 0 || m.VocabSize <= 0:
		return fmt.Errorf("layers, hidden size, heads, KV heads, head dim and vocab must be positive")
	case m.Heads%m.KVHeads != 0:
		return fmt.Errorf("%d heads do not group into %d KV heads", m.Heads, m.KVHeads)
	case m.Experts > 0 && (m.ExpertsUsed <= 0 || m.ExpertsUsed > m.Experts || m.ExpertIntermediateSize <= 0):
		return fmt.Errorf("a mixture of experts needs experts used (1..%d) and the expert size", m.Experts)
	case m.Experts == 0 && m.IntermediateSize <= 0:
		return fmt.Errorf("needs the feed-forward (intermediate) size")
	case m.SlidingWindowLayers > m.Layers || (m.SlidingWindowLayers > 0) != (m.SlidingWindow > 0):
		return fmt.Errorf("sliding window %d over %d layers does not fit %d layers", m.SlidingWindow, m.SlidingWindowLayers, m.Layers)
	case m.MaxContext <= 0:
		return fmt.Errorf("needs a maximum context")
	}
	if m.Source == "" && m.FromFile == "" {
		return fmt.Errorf("needs a source line")
	}
	if len(m.Quants) == 0 {
		m.Quants = slices.Clone(DefaultQuants)
	}
	for _, q := range m.Quants {
		if _, ok := schemes[q]; !ok {
			return fmt.Errorf("unknown quantization %q", q)
		}
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if m.Vision != m.HasTag("vision") {
		return fmt.Errorf("vision is %v but the tags say %v: they must agree", m.Vision, m.Tags)
	}
	if m.Ollama != "" && !ollamaTagRE.MatchString(m.Ollama) {
		return fmt.Errorf("ollama tag %q is not NAME:TAG", m.Ollama)
	}
	var text, experts, embd uint64
	m.eachTensor(func(t tensor) {
		text += t.params
		if t.expert {
			experts += t.params
		}
		if t.name == "token_embd" && !m.TiedEmbeddings {
			embd = t.params
		}
	})
	m.ParamsText = text
	m.ParamsActive = text - embd
	if m.Experts > 0 {
		m.ParamsActive -= experts / uint64(m.Experts) * uint64(m.Experts-m.ExpertsUsed)
	}
	if m.ParamsTotal == 0 {
		m.ParamsTotal = text
	}
	if m.ParamsTotal < text {
		return fmt.Errorf("published %d parameters, but the figures give %d: a figure is wrong", m.ParamsTotal, text)
	}
	m.ParamsVision = m.ParamsTotal - text
	return nil
}

// HasTag reports whether the model carries tag (chat, coder, vision,
// reasoning, moe).
func (m Model) HasTag(tag string) bool { return slices.Contains(m.Tags, tag) }
