package llamarun

import (
	"strings"
	"testing"

	"rehome/backend/localmodels"
)

// TestPlanArgsEmbeddingPooling: an embedding model whose header names no
// pooling type (marked by its tags, its name or by hand) is started with
// --embeddings and the pooling rehome chose, since llama-server's
// /v1/embeddings refuses none; one whose header names it gets no
// --pooling; a chat model gets --jinja and neither.
func TestPlanArgsEmbeddingPooling(t *testing.T) {
	for _, c := range []struct {
		m    localmodels.Model
		want string
		not  []string
	}{
		{localmodels.Model{Name: "e", Path: "/m/e.gguf", Embedding: true, Pooling: "last"}, "--pooling last --embeddings", []string{"--jinja"}},
		{localmodels.Model{Name: "e", Path: "/m/e.gguf", Embedding: true}, "--embeddings", []string{"--pooling", "--jinja"}},
		{localmodels.Model{Name: "c", Path: "/m/c.gguf"}, "--jinja", []string{"--pooling", "--embeddings"}},
	} {
		args := strings.Join(Plan{Model: c.m, Context: 512}.Args(), " ")
		if !strings.HasSuffix(args, c.want) {
			t.Errorf("%+v: %s (want it to end %q)", c.m, args, c.want)
		}
		for _, n := range c.not {
			if strings.Contains(args, n) {
				t.Errorf("%+v: %s has %s", c.m, args, n)
			}
		}
	}
}
