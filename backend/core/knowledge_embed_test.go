package core

import (
	"context"
	"path/filepath"
	"strings"
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
