package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
)

// FromGGUF reads a local .gguf file's header: the architecture from its
// metadata and every tensor's exact size from its tensor table. The
// weights themselves are not read (a 40 GB file parses in milliseconds),
// nothing is downloaded. A split file is read from any of its parts.
//
// The header is outside bytes: it is checked against the bounds of
// ggufcheck.go before the parser reads it, and a panic anywhere in the
// reading (the parser's, its accessors') is an error, never a crash.
func FromGGUF(path string) (m Model, l Layout, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, l, err = Model{}, Layout{}, fmt.Errorf("%s is not a readable GGUF model file (a damaged header: %v): llama.cpp models end in .gguf", path, r)
		}
	}()
	return fromGGUF(path)
}

func fromGGUF(path string) (Model, Layout, error) {
	gf, err := openGGUF(path)
	if err != nil {
		return Model{}, Layout{}, err
	}
	m, err := modelOfHeader(path, gf)
	if err != nil {
		return Model{}, Layout{}, err
	}
	l := tensorLayout(gf, &m)
	if m.IntermediateSize == 0 && m.Experts == 0 {
		m.IntermediateSize = 4 * m.HiddenSize
	}
	return m, l, nil
}

// openGGUF parses the header of the file at path, saying in words what
// the file is where it is not a GGUF language model's.
func openGGUF(path string) (*gguf.GGUFFile, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no file %s: give the path of a .gguf model file", path)
	case err != nil:
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	case st.IsDir():
		return nil, fmt.Errorf("%s is a folder: give the path of a .gguf model file in it", path)
	}
	gf, err := parseGGUF(path)
	if err != nil && isBadHeader(err) {
		return nil, fmt.Errorf("%s is not a readable GGUF model file: its header is refused (%v)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable GGUF model file (%v): llama.cpp models end in .gguf; a safetensors or .bin checkpoint must be converted first", path, err)
	}
	if a := gf.Architecture(); a.Type != "model" {
		return nil, fmt.Errorf("%s holds a %s (%s), not a language model: give the model's main .gguf file", path, a.Type, a.Architecture)
	}
	return gf, nil
}

// modelOfHeader is the model the header's architecture figures describe.
func modelOfHeader(path string, gf *gguf.GGUFFile) (Model, error) {
	a, md := gf.Architecture(), gf.Metadata()
	base := filepath.Base(path)
	m := Model{
		ID:                     "gguf:" + base,
		Name:                   md.Name,
		Family:                 a.Architecture,
		Publisher:              "local file",
		Arch:                   a.Architecture,
		Layers:                 int(a.BlockCount),
		HiddenSize:             int(a.EmbeddingLength),
		Heads:                  int(a.AttentionHeadCount),
		KVHeads:                int(a.AttentionHeadCountKV),
		HeadDim:                int(a.AttentionKeyLength),
		VocabSize:              int(a.VocabularyLength),
		Experts:                int(a.ExpertCount),
		ExpertsUsed:            int(a.ExpertUsedCount),
		ExpertIntermediateSize: int(a.ExpertFeedForwardLength),
		MaxContext:             int(a.MaximumContextLength),
		Tags:                   []string{},
		License:                md.License,
		Source:                 "GGUF header of " + path,
		FromFile:               path,
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if m.HeadDim == 0 && m.Heads > 0 {
		m.HeadDim = m.HiddenSize / m.Heads
	}
	if len(a.FeedForwardLength) > 0 {
		m.IntermediateSize = int(a.FeedForwardLength[0])
	}
	if m.MaxContext == 0 {
		m.MaxContext = 4096
	}
	if m.Experts > 0 {
		m.Tags = append(m.Tags, "moe")
	}
	if a.AttentionSlidingWindow > 0 && len(a.AttentionSlidingWindowLayers) > 0 {
		m.SlidingWindow = int(a.AttentionSlidingWindow)
		m.swaLayers = a.AttentionSlidingWindowLayers
		for _, on := range a.AttentionSlidingWindowLayers {
			if on {
				m.SlidingWindowLayers++
			}
		}
	}
	if m.Layers <= 0 || m.HiddenSize <= 0 || m.Heads <= 0 || m.KVHeads <= 0 || m.VocabSize <= 0 {
		return Model{}, fmt.Errorf("%s lacks the %s architecture figures rehome needs (layers %d, hidden %d, heads %d, KV heads %d, vocab %d)",
			path, a.Architecture, m.Layers, m.HiddenSize, m.Heads, m.KVHeads, m.VocabSize)
	}
	return m, nil
}

// tensorLayout sums the file's tensors by layer and type (the exact
// layout), and sets m's parameter counts, its quantization and whether
// its embeddings are tied.
func tensorLayout(gf *gguf.GGUFFile, m *Model) Layout {
	quant := strings.TrimPrefix(gf.Metadata().FileType.String(), "MOSTLY_")
	l := Layout{Quant: quant, LayerBytes: make([]int64, m.Layers), ByType: map[string]int64{}, Exact: true}
	var params, experts, embd int64
	for _, ti := range gf.TensorInfos {
		b := int64(ti.Bytes())
		n := int64(ti.Elements())
		params += n
		l.ByType[ti.Type.String()] += b
		switch {
		case strings.HasPrefix(ti.Name, "blk."):
			rest := strings.TrimPrefix(ti.Name, "blk.")
			idx, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '.'), 0)])
			if err != nil || idx < 0 || idx >= m.Layers {
				l.OutputBytes += b // e.g. NextN blocks beyond block_count
				continue
			}
			l.LayerBytes[idx] += b
			if strings.Contains(ti.Name, "_exps.") {
				experts += n
			}
		case strings.HasPrefix(ti.Name, "token_embd."):
			l.TokenEmbdBytes += b
			embd += n
		default:
			l.OutputBytes += b
		}
	}
	if st := int64(gf.Size); st > l.WeightBytes() {
		l.HeaderBytes = st - l.WeightBytes()
	}
	m.ParamsTotal, m.ParamsText, m.ParamsActive = params, params, params
	if m.Experts > 0 && m.ExpertsUsed > 0 {
		m.ParamsActive = params - experts/int64(m.Experts)*int64(m.Experts-m.ExpertsUsed)
	}
	if _, ok := gf.TensorInfos.Index([]string{"output.weight"}); ok == 0 {
		m.TiedEmbeddings = true
	} else {
		m.ParamsActive -= embd
	}
	m.Quants = []string{quant}
	return l
}

// ParseGGUF is the one way rehome parses a GGUF header (models and
// localmodels): checked against ggufcheck.go's bounds first, the parser's
// panics recovered.
func ParseGGUF(path string) (*gguf.GGUFFile, error) { return parseGGUF(path) }

func parseGGUF(path string) (gf *gguf.GGUFFile, err error) {
	// The parser guards its reads, but a damaged file must never take the
	// app down with it.
	defer func() {
		if r := recover(); r != nil {
			gf, err = nil, fmt.Errorf("damaged header: %v", r)
		}
	}()
	parts := gguf.CompleteShardGGUFFilename(path)
	if parts == nil {
		parts = []string{path}
	}
	for _, p := range parts {
		if err := checkGGUFHeader(p); err != nil {
			return nil, err
		}
	}
	return gguf.ParseGGUFFile(path, gguf.SkipLargeMetadata())
}
