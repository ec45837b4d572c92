package knowledge

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"rehome/backend/llm"
)

// embedServer answers /v1/embeddings in llama-server's shape
// ({"model", "object": "list", "usage", "data": [{"embedding", "index",
// "object": "embedding"}]}) with bag-of-words vectors in which a few
// synonyms share a dimension: a stand-in for a model that knows
// "guarantee" means "warranty". off makes it answer 404 as a server
// started without --embeddings does.
type embedServer struct {
	*httptest.Server
	mu     sync.Mutex
	models []string
	inputs int
	off    bool
}

var synonyms = map[string]string{"guarantee": "warranty", "guaranteed": "warranty", "lasts": "period", "long": "period"}

func bag(s string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		if x, ok := synonyms[w]; ok {
			w = x
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	return v
}

func newEmbedServer(t *testing.T) *embedServer {
	e := &embedServer{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || e.off {
			w.WriteHeader(501)
			w.Write([]byte(`{"error":{"code":501,"message":"This server does not support embeddings. Start it with ` + "`--embeddings`" + `","type":"not_supported_error"}}`))
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		e.mu.Lock()
		e.models = append(e.models, req.Model)
		e.inputs += len(req.Input)
		e.mu.Unlock()
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"embedding": bag(in), "index": i, "object": "embedding"})
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "object": "list", "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}, "data": data})
	}))
	t.Cleanup(e.Close)
	return e
}

// With embeddings, a question in other words than the file's finds its
// passage (BM25 alone does not); a new embedding model re-embeds every
// chunk; a server without embeddings leaves BM25 alone, said so.
func TestEmbeddingsFusedWithBM25(t *testing.T) {
	srv := newEmbedServer(t)
	src, data := t.TempDir(), t.TempDir()
	guide := write(t, src, "guide.md", guideMD)
	notes := write(t, src, "notes.txt", "The descaling tablets are in the drawer under the sink.\n")
	ctx := context.Background()
	plain := New(data, Options{})
	if _, err := plain.Add(ctx, "a1", []string{guide, notes}, nil); err != nil {
		t.Fatal(err)
	}
	q := "what guarantee period?"
	if hits, _ := plain.Search(ctx, "a1", q, "", 3); len(hits) != 0 && strings.Contains(hits[0].Text, "two years") {
		t.Fatalf("BM25 alone found the passage for other words: the test proves nothing: %+v", hits)
	}
	if r := plain.Ranking("a1"); !strings.Contains(r, "keywords alone") {
		t.Errorf("ranking %q", r)
	}
	plain.Close()

	emb := ServerEmbedder{Client: &llm.Client{BaseURL: srv.URL + "/v1"}, Name: "nomic-embed-text"}
	s := New(data, Options{Embed: emb})
	defer s.Close()
	// A changed file with embeddings on: the vectors of the others are
	// made too (there were none).
	res, err := s.Add(ctx, "a1", []string{write(t, src, "guide.md", guideMD+"\nSee the shop.\n")}, nil)
	if err != nil || !strings.Contains(res[0].Message, "embedded with nomic-embed-text") {
		t.Fatalf("%+v %v", res, err)
	}
	hits, err := s.Search(ctx, "a1", q, "", 3)
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "two years") {
		t.Fatalf("fused search for %q: %+v %v", q, hits, err)
	}
	if r := s.Ranking("a1"); !strings.Contains(r, "nomic-embed-text") || !strings.Contains(r, "reciprocal rank") {
		t.Errorf("ranking %q", r)
	}
	// Another model: everything is embedded again with it.
	srv.inputs = 0
	s2 := New(data, Options{Embed: ServerEmbedder{Client: emb.Client, Name: "bge-m3"}})
	defer s2.Close()
	s.Close()
	if _, err := s2.Add(ctx, "a1", []string{write(t, src, "extra.txt", "Extra words.")}, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := s2.List("a1")
	chunks := 0
	for _, f := range files {
		chunks += f.Chunks
	}
	if srv.inputs != chunks {
		t.Errorf("the new model embedded %d texts for %d chunks", srv.inputs, chunks)
	}
	// A later search without an embedder asks the model the chunks were
	// embedded with, at its server.
	s2.Close()
	later := New(data, Options{})
	defer later.Close()
	if hits, _ := later.Search(ctx, "a1", q, "", 3); len(hits) == 0 || !strings.Contains(hits[0].Text, "two years") {
		t.Fatalf("later search: %+v", hits)
	}
	if srv.models[len(srv.models)-1] != "bge-m3" {
		t.Errorf("the query was embedded with %q", srv.models[len(srv.models)-1])
	}
	// The server stops offering embeddings: keywords alone, and the
	// file still indexes with its reason said.
	srv.off = true
	res, err = later.Add(ctx, "a1", []string{write(t, src, "more.txt", "More words.")}, nil)
	if err != nil || res[0].State != StateIndexed {
		t.Fatalf("%+v %v", res, err)
	}
	noEmb := New(t.TempDir(), Options{Embed: emb})
	defer noEmb.Close()
	res, _ = noEmb.Add(ctx, "a2", []string{notes}, nil)
	if res[0].State != StateIndexed || !strings.Contains(res[0].Message, "no embeddings") || !strings.Contains(res[0].Message, "--embeddings") {
		t.Errorf("without embeddings: %q", res[0].Message)
	}
	if hits, err := later.Search(ctx, "a1", "descaling tablets", "", 3); err != nil || len(hits) == 0 {
		t.Errorf("search with the embedding server down: %+v %v", hits, err)
	}
}

func TestFuse(t *testing.T) {
	got := fuse([]string{"a", "b", "c"}, []string{"c", "a", "d"})
	if got[0].id != "a" || got[1].id != "c" || len(got) != 4 {
		t.Fatalf("%+v", got)
	}
}
