package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/knowledge"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// counting embeds with e and counts the texts it embedded.
type counting struct {
	knowledge.Embedder
	n *int
}

func (c counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	*c.n += len(texts)
	return c.Embedder.Embed(ctx, texts)
}

// The real llama-server's --embeddings wire: the tiny model (a llama
// model without a pooling type of its own, so it is served with
// --pooling mean: without it llama-server answers 400 "Pooling type
// 'none' is not OAI compatible") embeds real files' chunks; the vectors
// are kept with the model's name and its dimension (64); a query whose
// best chunk BM25 alone ranks second is ranked first once the
// embeddings' ranking is fused in; another embedding model re-embeds
// every chunk.
//
// The tiny model's embedding of a text is, after mean pooling, mostly
// the same for every text (the constant and the flag every token
// carries) plus its script's fragments as one-hot codes: the fragment
// "limescale" is one token wherever it appears, also inside
// "antilimescale", which BM25 (whole words) does not match; " done." is
// another, which pulls a text away from a query that lacks it.
func TestRealLlamaServerEmbeddings(t *testing.T) {
	script := tinymodel.Script{Code: []string{"print(1)"}, Answer: []string{"limescale", " done."}}
	s := llamatest.Start(t, script, "--embeddings", "--pooling", "mean")
	data, src := t.TempDir(), t.TempDir()
	put := func(name, text string) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []string{
		put("tablets.txt", "Use the antilimescale tablets in the kettle each month, one tablet in a full kettle of cold water, then rinse it twice. The warranty is void without them.\n"),
		put("warranty.txt", "Warranty: the warranty, warranty claims, warranty repairs."+strings.Repeat(" done.", 24)+"\n"),
		put("kettle.txt", "The kettle holds one and a half litres of water and boils it in three minutes.\n"),
	}
	embedded := 0
	e := counting{knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: s.URL}, Name: llamatest.Alias}, &embedded}
	svc := knowledge.New(data, knowledge.Options{Embed: e})
	defer svc.Close()
	ctx := context.Background()
	res, err := svc.Add(ctx, "a1", files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.State != knowledge.StateIndexed || !strings.HasSuffix(r.Message, "embedded with "+llamatest.Alias) {
			t.Fatalf("%s: %s", r.Name, r.Message)
		}
	}
	got, ok := svc.Embedding("a1")
	if !ok || got.Model != llamatest.Alias || got.Dims != 64 || got.Vectors != 3 || got.Server != s.URL || embedded != 3 {
		t.Fatalf("vectors: %+v (%v), %d texts embedded", got, ok, embedded)
	}
	if r := svc.Ranking("a1"); !strings.Contains(r, "embeddings ("+llamatest.Alias+" at "+s.URL+")") {
		t.Errorf("ranking: %s", r)
	}

	const query = "limescale warranty"
	{ // the cosines the fusion works from, for the log
		var texts []string
		for _, f := range files {
			b, _ := os.ReadFile(f)
			texts = append(texts, "\n"+string(b))
		}
		vs, err := (&llm.Client{BaseURL: s.URL}).Embed(ctx, "x", append([]string{query}, texts...))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs[1:] {
			var d float32
			for j := range v {
				d += v[j] * vs[0][j]
			}
			t.Logf("cos(query, %s) = %.4f", filepath.Base(files[i]), d)
		}
	}
	fused, err := svc.Search(ctx, "a1", query, "", 3)
	if err != nil || len(fused) < 2 {
		t.Fatalf("fused search: %+v %v", fused, err)
	}
	// BM25 alone: the same index with the embedding server gone.
	s.Stop()
	bm25, err := svc.Search(ctx, "a1", query, "", 3)
	if err != nil || len(bm25) != 2 {
		t.Fatalf("BM25 alone: %+v %v", bm25, err)
	}
	order := func(hits []knowledge.Hit) (out []string) {
		for _, h := range hits {
			out = append(out, h.File)
		}
		return out
	}
	t.Logf("%q: BM25 alone %v, fused with the real server's embeddings %v", query, order(bm25), order(fused))
	if bm25[0].File != "warranty.txt" || bm25[1].File != "tablets.txt" {
		t.Fatalf("BM25 alone ranked %v: want warranty.txt, then tablets.txt", order(bm25))
	}
	if fused[0].File != "tablets.txt" {
		t.Fatalf("fused ranking %v: the embeddings did not lift tablets.txt (BM25's second) to the top", order(fused))
	}

	// Another embedding model: every chunk is embedded again with it.
	s2 := llamatest.Start(t, script, "--embeddings", "--pooling", "mean")
	embedded = 0
	svc.SetEmbedder(counting{knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: s2.URL}, Name: "rehome-tiny-2"}, &embedded})
	res, err = svc.Add(ctx, "a1", []string{put("descale.txt", "Descale the kettle every four weeks.\n")}, nil)
	if err != nil || res[0].State != knowledge.StateIndexed || !strings.HasSuffix(res[0].Message, "embedded with rehome-tiny-2") {
		t.Fatalf("add with another model: %+v %v", res, err)
	}
	got, ok = svc.Embedding("a1")
	if !ok || got.Model != "rehome-tiny-2" || got.Server != s2.URL || got.Vectors != 4 || embedded != 4 {
		t.Fatalf("after the model changed: %+v, %d texts embedded (want all 4)", got, embedded)
	}
	if fused, err := svc.Search(ctx, "a1", query, "", 3); err != nil || fused[0].File != "tablets.txt" {
		t.Fatalf("fused search with the new model: %+v %v", fused, err)
	}
}
