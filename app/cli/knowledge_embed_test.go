package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// embedWire answers /v1/embeddings in llama-server's shape and counts
// the inputs each model was asked for.
func embedWire(t *testing.T) (*httptest.Server, func(model string) int) {
	var mu sync.Mutex
	inputs := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"not here"}}`, http.StatusNotFound)
			return
		}
		mu.Lock()
		inputs[req.Model] += len(req.Input)
		mu.Unlock()
		var data []map[string]any
		for i, in := range req.Input {
			v := make([]float32, 8)
			for j, b := range []byte(in) {
				v[j%8] += float32(b)
			}
			data = append(data, map[string]any{"embedding": v, "index": i, "object": "embedding"})
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv, func(model string) int {
		mu.Lock()
		defer mu.Unlock()
		return inputs[model]
	}
}

// TestKnowledgeCLIKeepsItsEmbeddingModel: after `rehome models add` of
// an embedding model, `knowledge add` without --embed-model keeps each
// assistant's choice — the served model it was embedded with (nothing
// re-embedded; the result names the model), or keywords alone — and
// says which in words and in --json's embedded_with.
func TestKnowledgeCLIKeepsItsEmbeddingModel(t *testing.T) {
	bin := llamatest.Need(t)
	home, src := t.TempDir(), t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(src, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	id := func(name string) string {
		r := rehomeCLI(t, home, "assistants", "add", "--name", name, "--json")
		var a struct{ ID string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &a) != nil || a.ID == "" {
			t.Fatalf("assistants add: %+v", r)
		}
		return a.ID
	}
	served, keywords := id("Served"), id("Keywords")
	srv, asked := embedWire(t)
	r := rehomeCLI(t, home, "knowledge", "add", served, write("a.txt", "The kettle boils water in three minutes.\n"), "--embed-model", "served-embed", "--embed-server", srv.URL+"/v1")
	if r.code != 0 || !strings.Contains(r.stderr, "embedded with served-embed") {
		t.Fatalf("add with --embed-model: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "add", keywords, write("k.txt", "The toaster browns bread.\n")); r.code != 0 || !strings.Contains(r.stderr, "is searched by keywords alone (BM25)") {
		t.Fatalf("add by keywords: %+v", r)
	}

	m, err := tinymodel.Build(filepath.Dir(bin), tinymodel.Script{Code: []string{"print(1)"}, Answer: []string{"ok"}})
	if err != nil {
		t.Fatal(err)
	}
	m.AsEmbedder()
	gguf := filepath.Join(t.TempDir(), "tiny-embed.gguf")
	if err := m.WriteFile(gguf); err != nil {
		t.Fatal(err)
	}
	if r = rehomeCLI(t, home, "models", "add", gguf); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "embedding model") {
		t.Fatalf("models add: %+v", r)
	}

	before := asked("served-embed")
	r = rehomeCLI(t, home, "knowledge", "add", served, write("b.txt", "Descale the kettle every month.\n"), "--json")
	var res []struct {
		Name, State  string
		EmbeddedWith string `json:"embedded_with"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res) != 1 || res[0].EmbeddedWith != "served-embed" {
		t.Fatalf("the served assistant switched model: %+v", r)
	}
	if got := asked("served-embed") - before; got != 1 {
		t.Fatalf("the served model embedded %d chunk(s), want the new file's 1", got)
	}
	r = rehomeCLI(t, home, "knowledge", "add", keywords, write("k2.txt", "The toaster has a crumb tray.\n"))
	if r.code != 0 || strings.Contains(r.stderr, "embedded with") || !strings.Contains(r.stderr, "is searched by keywords alone (BM25)") {
		t.Fatalf("the keywords assistant was embedded: %+v", r)
	}
}

// TestModelsAddEmbedding: `rehome models add` says why a model is an
// embedding model (a causal one marked by its general.tags, pooled by
// its last token); --embedding marks one no key marks, and a chat model
// is told how to.
func TestModelsAddEmbedding(t *testing.T) {
	bin := llamatest.Need(t)
	home, dir := t.TempDir(), t.TempDir()
	build := func(name string, meta map[string]any) string {
		m, err := tinymodel.Build(filepath.Dir(bin), tinymodel.DefaultScript("sales.csv", "region", "revenue"))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range meta {
			m.SetMeta(k, v)
		}
		p := filepath.Join(dir, name+".gguf")
		if err := m.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := rehomeCLI(t, home, "models", "add", build("e5-style", map[string]any{"general.tags": []string{"mteb", "sentence-transformers"}}))
	if r.code != 0 || !strings.Contains(r.stdout, "embedding model (for knowledge; its general.tags says so; pooled by its last token") {
		t.Fatalf("a causal embedding model by its tags: %+v", r)
	}
	r = rehomeCLI(t, home, "models", "add", build("plain", nil))
	if r.code != 0 || !strings.Contains(r.stdout, "chat model") || !strings.Contains(r.stdout, "add it again with --embedding") {
		t.Fatalf("a chat model: %+v", r)
	}
	r = rehomeCLI(t, home, "models", "add", build("unmarked", nil), "--embedding", "--json")
	var m struct {
		Embedding   bool
		EmbeddingBy string `json:"embedding_by"`
		Pooling     string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &m) != nil || !m.Embedding || m.EmbeddingBy != "you" || m.Pooling != "last" {
		t.Fatalf("--embedding: %+v", r)
	}
}
