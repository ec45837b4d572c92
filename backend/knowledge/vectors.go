package knowledge

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/llm"
)

// Embedder makes one vector per text with one model.
type Embedder interface {
	// Model names the model (a change of model re-embeds every chunk).
	Model() string
	// Server is where it runs (kept, so that a later search can ask it).
	Server() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ServerEmbedder embeds with a model server's /v1/embeddings.
type ServerEmbedder struct {
	Client *llm.Client
	Name   string
}

// Model is the embedding model's name.
func (e ServerEmbedder) Model() string { return e.Name }

// Server is the server's base URL.
func (e ServerEmbedder) Server() string { return e.Client.BaseURL }

// Embed asks the server, 32 texts a request.
func (e ServerEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	for i := 0; i < len(texts); i += 32 {
		v, err := e.Client.Embed(ctx, e.Name, texts[i:min(i+32, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return out, nil
}

// vectors are an assistant's chunk embeddings, normalised to length 1
// so that a dot product is the cosine; exact search over all of them
// (no approximate index: at 1,000 files it takes milliseconds).
type vectors struct {
	Model  string `json:"model"`
	Server string `json:"server"`
	Dims   int    `json:"dims"`
	ids    []string
	vecs   [][]float32
}

const vectorsMagic = "rehome-vectors 1\n"

func vectorsPath(dir string) string { return filepath.Join(dir, "vectors.bin") }

// loadVectors reads the file: the magic line, a JSON header line, then
// per chunk its id (uint16 length, bytes) and Dims float32s, little-endian.
func loadVectors(dir string) (*vectors, error) {
	f, err := os.Open(vectorsPath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic, _ := r.ReadString('\n')
	head, _ := r.ReadString('\n')
	v := &vectors{}
	if magic != vectorsMagic || json.Unmarshal([]byte(head), v) != nil || v.Dims <= 0 {
		return nil, fmt.Errorf("the embeddings file %s is damaged: remove it (rehome embeds again)", vectorsPath(dir))
	}
	for {
		var n uint16
		if err := binary.Read(r, binary.LittleEndian, &n); err == io.EOF {
			return v, nil
		} else if err != nil {
			return nil, err
		}
		id := make([]byte, n)
		vec := make([]float32, v.Dims)
		if _, err := io.ReadFull(r, id); err != nil {
			return nil, err
		}
		if err := binary.Read(r, binary.LittleEndian, vec); err != nil {
			return nil, err
		}
		v.ids, v.vecs = append(v.ids, string(id)), append(v.vecs, vec)
	}
}

func (v *vectors) save(dir string) error {
	head, _ := json.Marshal(v)
	return atomicfile.Write(vectorsPath(dir), 0o600, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString(vectorsMagic)
		bw.Write(head)
		bw.WriteString("\n")
		for i, id := range v.ids {
			binary.Write(bw, binary.LittleEndian, uint16(len(id)))
			bw.WriteString(id)
			if err := binary.Write(bw, binary.LittleEndian, v.vecs[i]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

func normalize(x []float32) []float32 {
	var s float64
	for _, f := range x {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return x
	}
	n := float32(1 / math.Sqrt(s))
	out := make([]float32, len(x))
	for i, f := range x {
		out[i] = f * n
	}
	return out
}

// add puts the vectors of ids (replacing any with the same id).
func (v *vectors) add(ids []string, vecs [][]float32) error {
	for i, x := range vecs {
		if v.Dims == 0 {
			v.Dims = len(x)
		}
		if len(x) != v.Dims {
			return fmt.Errorf("the embedding model gave %d numbers where it gave %d before", len(x), v.Dims)
		}
		v.ids, v.vecs = append(v.ids, ids[i]), append(v.vecs, normalize(x))
	}
	return nil
}

// drop removes the vectors of the file with that hash.
func (v *vectors) drop(sha string) {
	ids, vecs := v.ids[:0], v.vecs[:0]
	for i, id := range v.ids {
		if !strings.HasPrefix(id, sha+"/") {
			ids, vecs = append(ids, id), append(vecs, v.vecs[i])
		}
	}
	v.ids, v.vecs = ids, vecs
}

// nearest returns the ids of the top vectors by cosine with q, only
// those of the file sha when set.
func (v *vectors) nearest(q []float32, sha string, top int) []string {
	q = normalize(q)
	type sc struct {
		i int
		s float32
	}
	var all []sc
	for i, x := range v.vecs {
		if sha != "" && !strings.HasPrefix(v.ids[i], sha+"/") {
			continue
		}
		var d float32
		for j := range x {
			d += x[j] * q[j]
		}
		all = append(all, sc{i, d})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].s > all[b].s })
	var out []string
	for _, s := range all[:min(top, len(all))] {
		out = append(out, v.ids[s.i])
	}
	return out
}

// rrfK is reciprocal rank fusion's constant (Cormack et al. 2009: 60).
const rrfK = 60

// fuse ranks ids by reciprocal rank fusion of the rankings: the sum of
// 1/(rrfK + rank) over the rankings each id is in.
func fuse(rankings ...[]string) []scored {
	score := map[string]float64{}
	for _, r := range rankings {
		for i, id := range r {
			score[id] += 1 / float64(rrfK+i+1)
		}
	}
	out := make([]scored, 0, len(score))
	for id, s := range score {
		out = append(out, scored{id, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out
}

type scored struct {
	id    string
	score float64
}

// embedFile embeds a file's chunks (dropping those of the bytes it
// replaced); when the vectors on disk are another model's, every
// indexed chunk is embedded again with this one.
func (s *Service) embedFile(ctx context.Context, m *manifest, dir string, ix *textIndex, sha, replaced string, chunks []Chunk) error {
	v, err := loadVectors(dir)
	if err != nil {
		return err
	}
	e := s.embedder()
	if v == nil || v.Model != e.Model() || v.Server != e.Server() {
		v = &vectors{Model: e.Model(), Server: e.Server()}
		for _, f := range m.Files {
			if f.State != StateIndexed || f.SHA256 == sha || f.Chunks == 0 {
				continue
			}
			ids, texts, err := ix.texts(f.SHA256, f.Chunks)
			if err != nil {
				return err
			}
			vecs, err := e.Embed(ctx, texts)
			if err != nil {
				return err
			}
			if err := v.add(ids, vecs); err != nil {
				return err
			}
		}
	}
	if replaced != "" {
		v.drop(replaced)
	}
	v.drop(sha)
	ids, texts := make([]string, len(chunks)), make([]string, len(chunks))
	for i, c := range chunks {
		ids[i], texts[i] = chunkID(sha, c.N), c.Section+"\n"+c.Text
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if err := v.add(ids, vecs); err != nil {
		return err
	}
	return v.save(dir)
}

// dropVectors removes a file's vectors, if the assistant has any.
func dropVectors(dir, sha string) error {
	v, err := loadVectors(dir)
	if err != nil || v == nil {
		return err
	}
	v.drop(sha)
	return v.save(dir)
}

// Ranking says how the assistant's files are searched, in words.
func (s *Service) Ranking(id string) string {
	dir, err := s.assistantDir(id)
	if err != nil {
		return ""
	}
	v, _ := loadVectors(dir)
	if v == nil {
		return "keywords alone (BM25): no embeddings were made (give an embedding model with --embed-model, served at /v1/embeddings)"
	}
	return fmt.Sprintf("keywords (BM25) and embeddings (%s at %s), fused by reciprocal rank", v.Model, v.Server)
}

// Embedding is what an assistant's vectors were made with.
type Embedding struct {
	Model   string `json:"model"`
	Server  string `json:"server"`
	Dims    int    `json:"dims"`
	Vectors int    `json:"vectors"`
}

// Embedding says the model, server and dimension of the assistant's
// vectors, and how many there are; false when it has none.
func (s *Service) Embedding(id string) (Embedding, bool) {
	dir, err := s.assistantDir(id)
	if err != nil {
		return Embedding{}, false
	}
	v, err := loadVectors(dir)
	if err != nil || v == nil || len(v.ids) == 0 {
		return Embedding{}, false
	}
	return Embedding{Model: v.Model, Server: v.Server, Dims: v.Dims, Vectors: len(v.ids)}, true
}

// semantic is the embedding ranking of query, or nil when the
// assistant has no vectors or their model cannot be asked (then BM25
// ranks alone, and note says why).
func (s *Service) semantic(ctx context.Context, dir, query, sha string, top int) (ids []string, note string) {
	v, err := loadVectors(dir)
	if err != nil {
		return nil, err.Error()
	}
	if v == nil || len(v.ids) == 0 {
		return nil, ""
	}
	var e Embedder = ServerEmbedder{Client: &llm.Client{BaseURL: v.Server}, Name: v.Model}
	if own := s.embedder(); own != nil && own.Model() == v.Model {
		e = own
	}
	q, err := e.Embed(ctx, []string{query})
	if err != nil || len(q) != 1 || len(q[0]) != v.Dims {
		return nil, fmt.Sprintf("the embedding model %s did not answer (%v): keywords alone ranked the passages", v.Model, err)
	}
	return v.nearest(q[0], sha, top), ""
}

// SetEmbedder makes the next Adds embed with e (nil: keywords alone).
func (s *Service) SetEmbedder(e Embedder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = e
}

func (s *Service) embedder() Embedder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embed
}
