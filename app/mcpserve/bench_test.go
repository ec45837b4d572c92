package mcpserve

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/core"
)

// BenchmarkFileSearch: one file_search through MCP (the Go SDK's client
// over an in-memory transport: the protocol's cost, no process start)
// against the baseline, the same tool called as `rehome ask`'s loop calls
// it, measured in the same run.
func BenchmarkFileSearch(b *testing.B) {
	c, a, _ := fixture(b)
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{a.ID}})
	if err != nil {
		b.Fatal(err)
	}
	ma, err := c.MCP().Assistant(a.ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	var direct core.LoopTool
	for _, tl := range ma.Tools {
		if tl.Name == "file_search" {
			direct = tl
		}
	}
	b.Run("ask-loop", func(b *testing.B) {
		for b.Loop() {
			if out := direct.Call(b.Context(), core.ToolInput{Arguments: `{"query": "return within days"}`, FirstCitation: 1}); out.Error != "" {
				b.Fatal(out.Error)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.srv.Connect(b.Context(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			if r, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "file_search", Arguments: map[string]any{"query": "return within days"}}); err != nil || r.IsError {
				b.Fatal(err)
			}
		}
	})
}
