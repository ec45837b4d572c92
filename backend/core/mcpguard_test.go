package core

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/assistant"
	"rehome/backend/mcphost"
)

// With Settings → Browsing's air-gapped switch on, an assistant's MCP
// server on the internet is refused at the dial, in words that say why
// and what to do, and one on loopback (a real SDK server) is reached.
func TestMCPHTTPAirGapped(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Helper"})
	if err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := c.Browse().SaveSettings(BrowsingChange{AirGapped: &on}); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "near", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	m := c.MCPServers()
	t.Cleanup(m.CloseAll)
	for _, srv := range []mcphost.Server{{Name: "far", URL: "http://93.184.216.34/mcp"}, {Name: "near", URL: hs.URL + "/mcp"}} {
		if err := m.Add(a.ID, srv); err != nil {
			t.Fatal(err)
		}
	}
	_, err = m.Check(t.Context(), a.ID, "far")
	for _, w := range []string{"air-gapped (the assistant's audit, or Settings → Browsing's air-gapped switch)", "93.184.216.34:80 is on the internet", "run the MCP server on this machine or the LAN"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("an internet server air-gapped: the error does not say %q: %v", w, err)
		}
	}
	if v, err := m.Check(t.Context(), a.ID, "near"); err != nil || v.State == "failed" {
		t.Fatalf("a loopback server air-gapped: %+v %v", v, err)
	}
}
