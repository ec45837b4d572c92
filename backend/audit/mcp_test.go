package audit

import (
	"strings"
	"testing"
)

// What the audit says of an assistant's MCP servers, for each machine:
// counted, hosted by rehome; a server on the internet is a caveat, and
// under air-gapped use "You rebuild"; data that must stay local says
// where the arguments go; a LAN host is local.
func TestMCPTools(t *testing.T) {
	if m := mcpTools(Subject{}, Request{}); m != nil {
		t.Fatalf("no servers: %+v", m)
	}
	servers := []MCPServer{
		{Name: "everything", Kind: "stdio", Tools: 13},
		{Name: "nas", Kind: "http", Host: "nas.lan", Tools: 1},
		{Name: "exa", Kind: "http", Host: "mcp.exa.ai", Tools: 2},
	}
	s := Subject{MCP: servers}
	for _, c := range []struct {
		req      Request
		cat      Category
		caveat   string
		headline string
	}{
		{Request{}, Hosts, "Reached over the internet: exa (mcp.exa.ai)", "16 tools from 3 MCP servers"},
		{Request{DataMustStayLocal: true}, Hosts, "leave this machine: exa (mcp.exa.ai)", "16 tools"},
		{Request{AirGapped: true}, Rebuild, "air-gapped machine cannot reach it: exa (mcp.exa.ai)", "16 tools"},
	} {
		m := mcpTools(s, c.req)
		if m.Category != c.cat || m.Label != c.cat.Label() || !strings.HasPrefix(m.Headline, c.headline) || len(m.Caveats) != 1 || !strings.Contains(m.Caveats[0], c.caveat) {
			t.Errorf("%+v: %+v", c.req, m)
		}
	}
	m := mcpTools(Subject{MCP: servers[:2]}, Request{AirGapped: true})
	if m.Category != Hosts || len(m.Caveats) != 0 || m.Headline != "14 tools from 2 MCP servers" {
		t.Errorf("on this machine and the LAN, air-gapped: %+v", m)
	}
	m = mcpTools(Subject{MCP: []MCPServer{{Name: "a", Kind: "stdio", Tools: 1, Off: true}}}, Request{})
	if !strings.Contains(m.Headline, "all switched off") || !strings.Contains(strings.Join(m.Caveats, ""), "Switched off") {
		t.Errorf("all off: %+v", m)
	}
	m = mcpTools(Subject{MCP: []MCPServer{{Name: "a", Kind: "stdio", Tools: 1}, {Name: "b", Kind: "stdio", Tools: -1}}}, Request{})
	if m.Headline != "1 tool from 2 MCP servers (1 not listed yet)" {
		t.Errorf("one not listed: %q", m.Headline)
	}
}
