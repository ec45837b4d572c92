package app

import (
	"errors"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/core"
	"rehome/backend/mcphost"
)

// confirmingWindow is a window whose own dialog answers yes or no.
type confirmingWindow struct {
	fakeWindow
	answer bool
	asked  []string
}

func (w *confirmingWindow) ConfirmDialog(title, message string) (bool, error) {
	w.asked = append(w.asked, message)
	return w.answer, nil
}

// A stdio MCP server is a program rehome runs as the user: a page with
// no dialog of its own (the browser bridge) cannot add one, by hand or by
// an import, and nothing is saved; a server at a URL it can. In the
// window the user is asked in its own dialog, which names the program
// and the variables' names (never their values); No adds nothing.
func TestMCPServerCommandNeedsTheWindow(t *testing.T) {
	h := newTestApp(t)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	as, err := h.CreateAssistant(assistant.Assistant{Name: "Data Analyst"})
	if err != nil {
		t.Fatal(err)
	}
	prog := mcphost.Server{Name: "files", Command: []string{"mcp-server-filesystem", "/srv/shared"}, Env: []string{"TOKEN=canary-8812"}}
	if err := h.AddMCPServer(as.ID, prog); !errors.Is(err, ErrMCPCommandNeedsWindow) {
		t.Fatalf("a program from a page with no dialog: %v", err)
	}
	jan := core.MCPSource{Text: `{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}, "exa": {"url": "https://mcp.exa.ai/mcp"}}}`}
	if _, err := h.ImportMCPServers(as.ID, jan, nil); !errors.Is(err, ErrMCPCommandNeedsWindow) {
		t.Fatalf("an import with a program, from a page: %v", err)
	}
	if l, _ := h.MCPServersOf(as.ID); len(l) != 0 {
		t.Fatalf("saved from a page: %+v", l)
	}
	if err := h.AddMCPServer(as.ID, mcphost.Server{Name: "web", URL: "http://127.0.0.1:9/mcp"}); err != nil {
		t.Fatalf("a URL from a page: %v", err)
	}
	if r, err := h.ImportMCPServers(as.ID, jan, []string{"exa"}); err != nil || len(r.Added) != 1 {
		t.Fatalf("an import of a URL only, from a page: %+v %v", r, err)
	}

	w := &confirmingWindow{answer: false}
	h.SetEmitter(w)
	if err := h.AddMCPServer(as.ID, prog); !errors.Is(err, ErrMCPNotConfirmed) {
		t.Fatalf("No in the window's dialog: %v", err)
	}
	if len(w.asked) != 1 || !strings.Contains(w.asked[0], "mcp-server-filesystem /srv/shared") || !strings.Contains(w.asked[0], "TOKEN") || strings.Contains(w.asked[0], "canary-8812") || !strings.Contains(w.asked[0], "Data Analyst") {
		t.Fatalf("the dialog said: %q", w.asked)
	}
	w.answer = true
	if err := h.AddMCPServer(as.ID, prog); err != nil {
		t.Fatal(err)
	}
	if r, err := h.ImportMCPServers(as.ID, jan, []string{"fetch"}); err != nil || len(r.Added) != 1 {
		t.Fatalf("an import confirmed in the window: %+v %v", r, err)
	}
	l, err := h.MCPServersOf(as.ID)
	if err != nil || len(l) != 4 {
		t.Fatalf("servers: %+v %v", l, err)
	}
	if err := h.AddMCPServer(as.ID, mcphost.Server{Name: "Bad Name", URL: "http://127.0.0.1:9/mcp"}); !errors.Is(err, mcphost.ErrBadServer) {
		t.Errorf("a bad name: %v", err)
	}
	over, err := h.MCPOverview()
	if err != nil || len(over) != 1 || len(over[0].Servers) != 4 {
		t.Fatalf("overview: %+v %v", over, err)
	}
	if err := h.RemoveMCPServer(as.ID, "files"); err != nil {
		t.Fatal(err)
	}
	if err := h.SetMCPServerOn(as.ID, "web", false); err != nil {
		t.Fatal(err)
	}
	if l, _ := h.MCPServersOf(as.ID); len(l) != 3 || l[0].Name != "web" || l[0].On {
		t.Fatalf("after remove and off: %+v", l)
	}
}
