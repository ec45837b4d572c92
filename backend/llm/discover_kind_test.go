package llm

import (
	"context"
	"testing"
	"time"
)

// TestDiscoverPlainOpenAIServer: a plain OpenAI-compatible server that
// answers its model list on any path ending in /models (as many do) is
// not taken for LM Studio, whose /api/v0/models entries carry type and
// state.
func TestDiscoverPlainOpenAIServer(t *testing.T) {
	d := "testdata/discovery/"
	plain := newReplay(t, "")
	plain.extra["GET /v1/models"] = d + "lmstudio-models.json"
	plain.extra["GET /api/v0/models"] = d + "lmstudio-models.json"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	servers, err := Discover(ctx, DiscoverOptions{URL: plain.base()})
	if err != nil || len(servers) != 1 {
		t.Fatalf("%+v %v", servers, err)
	}
	if s := servers[0]; s.Kind != "openai" || s.Name != "OpenAI-compatible server" {
		t.Fatalf("a plain server is %q (%q)", s.Kind, s.Name)
	}
}
