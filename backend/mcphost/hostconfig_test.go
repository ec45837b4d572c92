package mcphost

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readHost(t *testing.T, name string) []HostEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hostconfig", name))
	if err != nil {
		t.Fatal(err)
	}
	list, err := ParseHostConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// The configurations MCP hosts ship (testdata/hostconfig/README.md):
// Jan's first-start mcp_config.json (stdio and HTTP servers, switched
// off, with variables, named with spaces), Claude Desktop's and VS Code's
// forms. Each server comes out as rehome would add it, and every one
// passes Check.
func TestParseHostConfig(t *testing.T) {
	jan := readHost(t, "jan_default.json")
	var names []string
	for _, e := range jan {
		names = append(names, e.Server.Name)
		if err := e.Server.Check(); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
	want := []string{"jan-browser-mcp", "browsermcp", "exa", "fetch", "filesystem", "olostep", "sequential-thinking", "serper"}
	if !slices.Equal(names, want) {
		t.Fatalf("Jan's servers: %q, want %q (sorted by Jan's names)", names, want)
	}
	byName := map[string]HostEntry{}
	for _, e := range jan {
		byName[e.Server.Name] = e
	}
	exa := byName["exa"].Server
	if exa.URL != "https://mcp.exa.ai/mcp" || len(exa.Command) != 0 || exa.Off || exa.Kind() != "http" {
		t.Errorf("exa (Jan's one active HTTP server, with an empty command beside its url): %+v", exa)
	}
	fetch := byName["fetch"].Server
	if !slices.Equal(fetch.Command, []string{"uvx", "mcp-server-fetch"}) || !fetch.Off {
		t.Errorf("fetch (active: false): %+v", fetch)
	}
	if b := byName["jan-browser-mcp"]; b.Name != "Jan Browser MCP" || !slices.Equal(b.Server.Env, []string{"BRIDGE_HOST=127.0.0.1", "BRIDGE_PORT=17389"}) {
		t.Errorf("Jan Browser MCP: %+v", b)
	}

	claude := readHost(t, "claude_filesystem.json")
	if len(claude) != 1 || !slices.Equal(claude[0].Server.Command, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/path/to/other/allowed/dir"}) || claude[0].Server.Off {
		t.Errorf("Claude Desktop's filesystem: %+v", claude)
	}
	vs := readHost(t, "vscode_filesystem.json")
	if len(vs) != 1 || vs[0].Server.Name != "filesystem" || vs[0].Server.Command[3] != "${workspaceFolder}" {
		t.Errorf("VS Code's filesystem: %+v", vs)
	}
}

// A file that is not a host's configuration is refused in words.
func TestParseHostConfigRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":       "mcpServers: {}",
		"no servers":     `{"mcpServers": {}}`,
		"something else": `{"name": "Data Analyst", "instructions": "…"}`,
		"too large":      `{"mcpServers": {"x": {"command": "` + strings.Repeat("a", MaxHostConfig) + `"}}}`,
	} {
		_, err := ParseHostConfig([]byte(in))
		if !errors.Is(err, ErrBadServer) {
			t.Errorf("%s: %v, want ErrBadServer", name, err)
		}
	}
}

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"Jan Browser MCP": "jan-browser-mcp", "github.com/x": "github-com-x", "--a--": "a",
		"a-very-long-server-name-indeed-longer": "a-very-long-server-name",
	} {
		if got := HostName(in); got != want {
			t.Errorf("HostName(%q) = %q, want %q", in, got, want)
		}
	}
	for _, h := range Hosts {
		if !strings.HasPrefix(h.File("/home/u"), "/home/u/.") {
			t.Errorf("%s keeps its file at %s", h.ID, h.File("/home/u"))
		}
	}
}
