package localmodels

import (
	"context"
	"path/filepath"
	"testing"

	"rehome/backend/store"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// TestInspectEmbeddingHeaders: the header keys llama.cpp's converter
// writes for embedding models mark one, causal ones included (a pooling
// type with causal attention: Qwen3-Embedding, e5-mistral; general.tags
// of a sentence-transformers model; a name that says embed), with the
// pooling llama-server is told when the header names none; a reranker
// (pooling type rank) and a chat model are not embedding models.
func TestInspectEmbeddingHeaders(t *testing.T) {
	bin := llamatest.Need(t)
	dir := t.TempDir()
	cases := []struct {
		name      string
		meta      map[string]any
		embedding bool
		by        string
		pooling   string
	}{
		{"chat", nil, false, "", ""},
		{"mean-causal", map[string]any{"llama.pooling_type": uint32(1)}, true, "llama.pooling_type", ""},
		{"cls-causal", map[string]any{"llama.pooling_type": uint32(2)}, true, "llama.pooling_type", ""},
		{"last", map[string]any{"llama.pooling_type": uint32(3)}, true, "llama.pooling_type", ""},
		{"encoder", map[string]any{"llama.attention.causal": false}, true, "llama.attention.causal", "mean"},
		{"tags", map[string]any{"general.tags": []string{"mteb", "sentence-transformers", "transformers"}}, true, "general.tags", "last"},
		{"named", map[string]any{"general.name": "Qwen3 Embedding 0.6B"}, true, "general.name", "last"},
		{"reranker", map[string]any{"llama.pooling_type": uint32(4), "general.name": "bge reranker embed"}, false, "", ""},
		{"chat-tags", map[string]any{"general.tags": []string{"text-generation", "conversational"}}, false, "", ""},
	}
	for _, c := range cases {
		m, err := tinymodel.Build(filepath.Dir(bin), tinymodel.DefaultScript("sales.csv", "region", "revenue"))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.meta {
			m.SetMeta(k, v)
		}
		p := filepath.Join(dir, c.name+".gguf")
		if err := m.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		got, err := Inspect(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Embedding != c.embedding || got.EmbeddingBy != c.by || got.Pooling != c.pooling {
			t.Errorf("%s: embedding %v by %q pooling %q, want %v by %q pooling %q", c.name, got.Embedding, got.EmbeddingBy, got.Pooling, c.embedding, c.by, c.pooling)
		}
	}
}

// TestAddMarkedEmbedding: a model no key marks is an embedding model
// when the user says so (AddOptions.Embedding), pooled by its last
// token (llamarun's TestPlanArgsEmbeddingPooling: --pooling last).
func TestAddMarkedEmbedding(t *testing.T) {
	p := tiny(t, t.TempDir())
	st, err := store.Open(filepath.Join(t.TempDir(), "rehome.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewService(st, t.TempDir())
	m, err := s.Add(context.Background(), p, AddOptions{Name: "by-hand", Embedding: true})
	if err != nil || !m.Embedding || m.EmbeddingBy != "you" || m.Pooling != "last" {
		t.Fatalf("marked by hand: %+v %v", m, err)
	}
}
