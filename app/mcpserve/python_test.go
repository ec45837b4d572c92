package mcpserve

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/core"
)

// needSandbox skips (saying so) where no Podman service and image are
// here, and fails instead under REHOME_REQUIRE_PODMAN (make test).
func needSandbox(t *testing.T, s *Server) {
	t.Helper()
	if _, err := s.opts.MCP.Python(t.Context(), &core.MCPAssistant{Name: "probe"}, nil); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") != "" {
			t.Fatalf("the sandbox is needed: %v", err)
		}
		t.Skipf("skipped: no sandbox here (%v)", err)
	}
}

// python keeps its variables between the calls of one MCP session, sees
// the assistant's knowledge and the files the client sent at /mnt/data,
// has no network, and another MCP session starts fresh; a name with a
// path in it is refused.
func TestServePython(t *testing.T) {
	c, a, _ := fixture(t)
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	needSandbox(t, s)
	cs := connect(t, s, nil)
	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(cs, "python", map[string]any{"code": "x = 41\nprint(open('/mnt/data/returns.md').read()[:9])"}); !strings.Contains(text(r), "# Returns") {
		t.Fatalf("knowledge at /mnt/data: %s", text(r))
	}
	if r := call(cs, "python", map[string]any{"code": "print(x + 1)"}); !strings.Contains(text(r), "42") {
		t.Fatalf("state kept: %s", text(r))
	}
	r := call(cs, "python", map[string]any{"code": "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2); print('NET')\nexcept OSError as e:\n    print('no network', e)"})
	if strings.Contains(text(r), "NET") || !strings.Contains(text(r), "no network") {
		t.Fatalf("network: %s", text(r))
	}
	csv := base64.StdEncoding.EncodeToString([]byte("a,b\n1,2\n3,4\n"))
	if r := call(cs, "upload_file", map[string]any{"name": "../evil.csv", "content_base64": csv}); !r.IsError {
		t.Fatalf("a path name was taken: %s", text(r))
	}
	if r := call(cs, "upload_file", map[string]any{"name": "t.csv", "content_base64": csv}); r.IsError {
		t.Fatalf("upload: %s", text(r))
	}
	r = call(cs, "python", map[string]any{"code": "import pandas as pd\nprint(pd.read_csv('/mnt/data/t.csv').b.sum())\nimport matplotlib.pyplot as plt\nplt.plot([1,2]); plt.show()"})
	if !strings.Contains(text(r), "6") {
		t.Fatalf("the uploaded file: %s", text(r))
	}
	img := false
	for _, ct := range r.Content {
		if im, ok := ct.(*mcp.ImageContent); ok && im.MIMEType == "image/png" && len(im.Data) > 100 {
			img = true
		}
	}
	if !img {
		t.Fatalf("no plot came back: %+v", r.Content)
	}
	// Another client: its own session, no x, no t.csv.
	cs2 := connect(t, s, nil)
	if r := call(cs2, "python", map[string]any{"code": "import os\nprint('x' in dir(), os.path.exists('/mnt/data/t.csv'))"}); !strings.Contains(text(r), "False False") {
		t.Fatalf("sessions shared state: %s", text(r))
	}
	// The sent files go with their session.
	cs.Close()
	s.closeAll()
	if ents, _ := os.ReadDir(filepath.Join(c.DataDir(), "mcp")); len(ents) != 0 {
		t.Fatalf("uploads left behind: %v", ents)
	}
}
