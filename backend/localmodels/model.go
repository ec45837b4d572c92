package localmodels

import (
	"time"

	"rehome/backend/models"
)

// Schema is the version of Model records this build writes.
const Schema = 1

// Model is one carried GGUF file as rehome registered it.
type Model struct {
	Schema int `json:"schema"`
	// Name is how the user names it (rehome ask --model NAME): the file's
	// name without .gguf unless given.
	Name string `json:"name"`
	// Path is the file rehome runs: where it lay, or its copy under
	// <data>/models when Copied.
	Path   string `json:"path"`
	Copied bool   `json:"copied"`
	// Source is where the file was added from.
	Source string `json:"source"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Arch, Layers, ContextLength and Quant come from the GGUF header.
	Arch          string `json:"arch"`
	Layers        int    `json:"layers"`
	ContextLength int    `json:"context_length"`
	Quant         string `json:"quant"`
	Params        int64  `json:"params"`
	// Embedding marks a model that embeds text: for knowledge, not for
	// chat. EmbeddingBy is what said so: the header key (a pooling type,
	// attention that is not causal, general.tags, a name with "embed")
	// or "you" (`rehome models add --embedding`).
	Embedding   bool   `json:"embedding"`
	EmbeddingBy string `json:"embedding_by,omitempty"`
	// Pooling is what llama-server is told (--pooling) for an embedding
	// model whose header names no pooling type: "last" for a causal
	// model, "mean" for one that attends both ways; "" when the header
	// names it.
	Pooling string `json:"pooling,omitempty"`
	// MMProj is the image projector llama-server loads beside the model
	// (--mmproj): a model with one reads images. MMProjSize is its size,
	// which the fit counts.
	MMProj     string    `json:"mmproj,omitempty"`
	MMProjSize int64     `json:"mmproj_size,omitempty"`
	Added      time.Time `json:"added"`
	// Measured is the speed last measured running it on this machine.
	Measured *Measured `json:"measured,omitempty"`
}

// Measured is what a run of the model on this machine showed.
type Measured struct {
	TokensPerSecond float64   `json:"tokens_per_second"`
	Backend         string    `json:"backend"`
	LayersOnGPU     int       `json:"layers_on_gpu"`
	At              time.Time `json:"at"`
}

// Spec returns the fit's view of the file (its real tensors).
func (m Model) Spec() (models.Model, models.Layout, error) {
	return models.FromGGUF(m.Path)
}
