package core

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/backend/knowledge"
	"rehome/backend/llm"
	"rehome/backend/localmodels"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// TestKnowledgeCarriedEmbeddingModel: with an embedding GGUF registered
// (the tiny model made an embedder: mean pooling, attention not causal)
// and no embedding server chosen, adding knowledge starts it through
// LocalModels with the real llama-server (loopback, its own port and
// key) and embeds with it; searches ask it again, and the fused ranking
// lifts the passage BM25 alone ranks second.
func TestKnowledgeCarriedEmbeddingModel(t *testing.T) {
	bin := llamatest.Need(t)
	t.Setenv("REHOME_LLAMA_SERVER", bin)
	t.Setenv("REHOME_LLAMA_SERVER_VULKAN", filepath.Join(t.TempDir(), "none")) // the CPU build alone: no Vulkan device listing in this test
	m, err := tinymodel.Build(filepath.Dir(bin), tinymodel.Script{Code: []string{"print(1)"}, Answer: []string{"limescale", " done."}})
	if err != nil {
		t.Fatal(err)
	}
	m.AsEmbedder()
	gguf := filepath.Join(t.TempDir(), "tiny-embed.gguf")
	if err := m.WriteFile(gguf); err != nil {
		t.Fatal(err)
	}
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	ctx := context.Background()
	reg, err := c.LocalModels().Add(ctx, gguf, localmodels.AddOptions{})
	if err != nil || !reg.Embedding || reg.Name != "tiny-embed" {
		t.Fatalf("models add: %+v %v (want it marked an embedding model)", reg, err)
	}
	a, err := c.Assistants().Create(assistantNamed("Kettle Helper"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{
		writeFile(t, filepath.Join(src, "tablets.txt"), "Use the antilimescale tablets in the kettle each month, one tablet in a full kettle of cold water, then rinse it twice. The warranty is void without them.\n"),
		writeFile(t, filepath.Join(src, "warranty.txt"), "Warranty: the warranty, warranty claims, warranty repairs."+strings.Repeat(" done.", 24)+"\n"),
		writeFile(t, filepath.Join(src, "kettle.txt"), "The kettle holds one and a half litres of water and boils it in three minutes.\n"),
	}
	k := c.Knowledge()
	res, err := k.Add(ctx, a.ID, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.State != knowledge.StateIndexed || !strings.HasSuffix(r.Message, "embedded with tiny-embed") {
			t.Fatalf("%s: %s", r.Name, r.Message)
		}
	}
	rk, err := k.RankingOf(a.ID)
	if err != nil || rk.Mode != "hybrid" || rk.Model != "tiny-embed" || rk.Dims != 64 || rk.Vectors != 3 || !strings.Contains(rk.Words, "the carried model tiny-embed, which rehome starts") {
		t.Fatalf("ranking: %+v %v", rk, err)
	}
	running, _ := c.LocalModels().List(ctx)
	if len(running) != 1 || !strings.HasPrefix(running[0].Running, "http://127.0.0.1:") {
		t.Fatalf("the carried embedding model is not running on loopback: %+v", running)
	}
	const query = "limescale warranty"
	fused, err := k.Search(ctx, a.ID, query, "", 3)
	if err != nil || len(fused) < 2 || fused[0].File != "tablets.txt" {
		t.Fatalf("fused search: %+v %v", fused, err)
	}
	// BM25 alone, for the comparison: an embedder of that name that does
	// not answer.
	k.SetEmbedder(knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: "http://127.0.0.1:1/v1"}, Name: "tiny-embed"})
	bm25, err := k.Search(ctx, a.ID, query, "", 3)
	if err != nil || len(bm25) != 2 || bm25[0].File != "warranty.txt" || bm25[1].File != "tablets.txt" {
		t.Fatalf("BM25 alone: %+v %v", bm25, err)
	}
	k.SetEmbedder(nil)
	if fused, err := k.Search(ctx, a.ID, query, "", 3); err != nil || fused[0].File != "tablets.txt" {
		t.Fatalf("the carried model again: %+v %v", fused, err)
	}
	// A full chunk (800 tokens by rehome's count, about 640 by the
	// model's) is embedded too: past llama-server's default batch of 512,
	// which refuses that much to a causal model ("input (801 tokens) is
	// too large to process") but not to an embedding model, whose
	// attention is not causal.
	long := writeFile(t, filepath.Join(src, "long.txt"), strings.Repeat("word ", 700)+"\n")
	if res, err := k.Add(ctx, a.ID, []string{long}, nil); err != nil || res[0].Chunks == 0 || !strings.HasSuffix(res[0].Message, "embedded with tiny-embed") {
		t.Fatalf("a full chunk: %+v %v", res, err)
	}
	// The ask loop's file_search reaches the same ranking.
	tool, ok := k.Tool(a.ID)
	if !ok || tool.Name != knowledge.ToolName {
		t.Fatalf("tool: %+v %v", tool, ok)
	}
}

// embedWire answers /v1/embeddings as llama-server does, with a vector
// per input, and counts the inputs each model name was asked for.
type embedWire struct {
	*httptest.Server
	mu     sync.Mutex
	inputs map[string]int
}

func newEmbedWire(t *testing.T) *embedWire {
	e := &embedWire{inputs: map[string]int{}}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"not here"}}`, http.StatusNotFound)
			return
		}
		e.mu.Lock()
		e.inputs[req.Model] += len(req.Input)
		e.mu.Unlock()
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
	t.Cleanup(e.Close)
	return e
}

func (e *embedWire) asked(model string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inputs[model]
}

// TestKnowledgeKeepsItsEmbeddingModel: registering a carried embedding
// model does not switch an assistant quietly. One embedded by a server's
// model keeps it for the next add without --embed-model (nothing is
// re-embedded, the result names the model); one indexed by keywords
// alone stays so (the carried model is not started); only an assistant
// that never had knowledge gets the carried model by itself; choosing a
// model (SetEmbedder) still changes it, re-embedding every chunk.
func TestKnowledgeKeepsItsEmbeddingModel(t *testing.T) {
	bin := llamatest.Need(t)
	t.Setenv("REHOME_LLAMA_SERVER", bin)
	t.Setenv("REHOME_LLAMA_SERVER_VULKAN", filepath.Join(t.TempDir(), "none"))
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	ctx := context.Background()
	k := c.Knowledge()
	wire := newEmbedWire(t)
	newAssistant := func(name string) string {
		a, err := c.Assistants().Create(assistantNamed(name))
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	add := func(id, name, text string) knowledge.Result {
		t.Helper()
		res, err := k.Add(ctx, id, []string{writeFile(t, filepath.Join(src, id+"-"+name), text)}, nil)
		if err != nil || len(res) != 1 || res[0].State != knowledge.StateIndexed {
			t.Fatalf("add %s: %+v %v", name, res, err)
		}
		return res[0]
	}

	// Before any carried model: one assistant embedded by a server's
	// model, one by keywords alone.
	served, keywords := newAssistant("Served"), newAssistant("Keywords")
	k.SetEmbedder(knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: wire.URL + "/v1"}, Name: "served-embed"})
	if r := add(served, "a.txt", "The kettle boils water in three minutes.\n"); r.EmbeddedWith != "served-embed" {
		t.Fatalf("the chosen model: %+v", r)
	}
	k.SetEmbedder(nil)
	if r := add(keywords, "a.txt", "The toaster browns bread on both sides.\n"); r.EmbeddedWith != "" {
		t.Fatalf("keywords alone: %+v", r)
	}

	// A carried embedding model arrives.
	m, err := tinymodel.Build(filepath.Dir(bin), tinymodel.Script{Code: []string{"print(1)"}, Answer: []string{"ok"}})
	if err != nil {
		t.Fatal(err)
	}
	m.AsEmbedder()
	gguf := filepath.Join(t.TempDir(), "tiny-embed.gguf")
	if err := m.WriteFile(gguf); err != nil {
		t.Fatal(err)
	}
	if reg, err := c.LocalModels().Add(ctx, gguf, localmodels.AddOptions{}); err != nil || !reg.Embedding {
		t.Fatalf("models add: %+v %v", reg, err)
	}

	before := wire.asked("served-embed")
	r := add(served, "b.txt", "Descale the kettle every month.\n")
	if r.EmbeddedWith != "served-embed" || !strings.HasSuffix(r.Message, "embedded with served-embed") {
		t.Fatalf("the served assistant switched model: %+v", r)
	}
	if got := wire.asked("served-embed") - before; got != 1 {
		t.Fatalf("the served model was asked for %d chunk(s), want the new file's 1 (nothing re-embedded)", got)
	}
	if e, ok := k.svc.Embedding(served); !ok || e.Model != "served-embed" || e.Vectors != 2 {
		t.Fatalf("the served assistant's vectors: %+v %v", e, ok)
	}
	if r := add(keywords, "b.txt", "The toaster has a crumb tray.\n"); r.EmbeddedWith != "" || strings.Contains(r.Message, "embedded") {
		t.Fatalf("the keywords assistant was embedded: %+v", r)
	}
	if _, ok := k.svc.Embedding(keywords); ok {
		t.Fatal("the keywords assistant has vectors")
	}
	if running, _ := c.LocalModels().List(ctx); len(running) != 1 || running[0].Running != "" {
		t.Fatalf("the carried model was started for assistants that keep their choice: %+v", running)
	}

	// A new assistant gets the carried model by itself.
	fresh := newAssistant("Fresh")
	if r := add(fresh, "a.txt", "The fridge keeps milk cold.\n"); r.EmbeddedWith != "tiny-embed" {
		t.Fatalf("the new assistant: %+v", r)
	}

	// Choosing a model still changes it: every chunk re-embedded.
	k.SetEmbedder(knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: wire.URL + "/v1"}, Name: "other-embed"})
	if r := add(keywords, "c.txt", "The toaster is warm.\n"); r.EmbeddedWith != "other-embed" || wire.asked("other-embed") != 3 {
		t.Fatalf("a chosen model: %+v, %d chunk(s) embedded (want 3)", r, wire.asked("other-embed"))
	}
}
