package core

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/mcphost"
)

// everythingServer is the reference MCP server (npm
// @modelcontextprotocol/server-everything, installed into build/mcp by
// build/setup.sh test), as a stdio command.
func everythingServer(t *testing.T) []string {
	t.Helper()
	p, _ := filepath.Abs("../../build/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("REHOME_REQUIRE_TOOLS") == "1" {
			t.Fatalf("server-everything is not installed (%v): run build/setup.sh test", err)
		}
		t.Skip("skipped: server-everything is not installed (build/setup.sh test installs it)")
	}
	return []string{"node", p, "stdio"}
}

func mcpView(t *testing.T, c *Core, ref, name string) MCPServerView {
	t.Helper()
	list, err := c.MCPServers().Views(ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s has no server %s: %+v", ref, name, list)
	return MCPServerView{}
}

// Settings → MCP's service against the reference server: a server added
// is "untested", Check starts it and lists its tools with their rules
// (kept: "listed" once the connection is gone, across a reopen),
// "Always allow" is kept only for a tool that asks, off drops the
// connection and its tools from the loop, the values of its variables
// never come back, and Remove forgets what it found.
func TestMCPServersSettings(t *testing.T) {
	cmd := everythingServer(t)
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Data Analyst"})
	if err != nil {
		t.Fatal(err)
	}
	m := c.MCPServers()
	if err := m.Add(a.ID, mcphost.Server{Name: "everything", Command: cmd, Env: []string{"SECRET_TOKEN=canary-5521"}}); err != nil {
		t.Fatal(err)
	}
	if v := mcpView(t, c, a.Name, "everything"); v.State != "untested" || len(v.Tools) != 0 || !v.On || !slices.Equal(v.EnvNames, []string{"SECRET_TOKEN"}) {
		t.Fatalf("before a test: %+v", v)
	}
	v, err := m.Check(t.Context(), a.Name, "everything")
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, tl := range v.Tools {
		rules[tl.Name] = string(tl.Rule)
	}
	// server-everything's own annotations: echo is read-only, and a
	// tool without annotations asks.
	if v.State != "running" || len(v.Tools) < 5 || rules["echo"] != "none" || v.Listed == "" {
		t.Fatalf("after a test: state %s, %d tools, rules %v", v.State, len(v.Tools), rules)
	}
	ask := ""
	for n, r := range rules {
		if r == "ask" && (ask == "" || n < ask) {
			ask = n
		}
	}
	if ask == "" {
		t.Fatalf("no tool of server-everything asks: %v", rules)
	}
	if err := m.SetAlwaysAllow(a.ID, "everything", "echo", true); !errors.Is(err, mcphost.ErrBadServer) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Always allow for a read-only tool: %v", err)
	}
	if err := m.SetAlwaysAllow(a.ID, "everything", "no-such-tool", true); !errors.Is(err, mcphost.ErrBadServer) {
		t.Errorf("Always allow for a tool it does not have: %v", err)
	}
	if err := m.SetAlwaysAllow(a.ID, "everything", ask, true); err != nil {
		t.Fatal(err)
	}
	v = mcpView(t, c, a.ID, "everything")
	for _, tl := range v.Tools {
		if tl.AlwaysAllowed != (tl.Name == ask) {
			t.Errorf("%s always allowed: %v", tl.Name, tl.AlwaysAllowed)
		}
	}
	// Always allow drops the open connection (it holds the old list).
	if v.State != "listed" {
		t.Errorf("after Always allow: %s", v.State)
	}
	raw, _ := json.Marshal(v)
	if strings.Contains(string(raw), "canary-5521") {
		t.Fatalf("a variable's value came back: %s", raw)
	}

	// Off: kept, its connection closed, its tools not offered.
	if _, _, err := m.Test(t.Context(), a.ID, "everything"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetOn(a.ID, "everything", false); err != nil {
		t.Fatal(err)
	}
	if v := mcpView(t, c, a.ID, "everything"); v.State != "off" || v.On || len(v.Tools) == 0 {
		t.Fatalf("off: %+v", v)
	}
	if tools, _ := m.Tools(t.Context(), a.ID, a.Name, nil, map[string]bool{}); len(tools) != 0 {
		t.Fatalf("an off server's tools reach the loop: %d", len(tools))
	}
	if err := m.SetOn(a.ID, "everything", true); err != nil {
		t.Fatal(err)
	}
	if tools, _ := m.Tools(t.Context(), a.ID, a.Name, nil, map[string]bool{}); len(tools) != len(v.Tools) {
		t.Fatalf("on again: %d tools in the loop, %d listed", len(tools), len(v.Tools))
	}
	if err := m.SetOn(a.ID, "nothing", true); !errors.Is(err, mcphost.ErrBadServer) {
		t.Errorf("a server it does not have: %v", err)
	}

	// What was found outlives the process: "listed" after a reopen.
	c.Close()
	c = openCore(t, dir, Options{})
	m = c.MCPServers()
	over, err := m.Overview()
	if err != nil || len(over) != 1 || len(over[0].Servers) != 1 {
		t.Fatalf("overview: %+v %v", over, err)
	}
	if s := over[0].Servers[0]; s.State != "listed" || len(s.Tools) != len(v.Tools) || over[0].AssistantName != "Data Analyst" {
		t.Fatalf("after a reopen: %+v", s)
	}
	if err := m.Remove(a.ID, "everything"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(a.ID, mcphost.Server{Name: "everything", Command: cmd}); err != nil {
		t.Fatal(err)
	}
	if v := mcpView(t, c, a.ID, "everything"); v.State != "untested" || len(v.Tools) != 0 {
		t.Fatalf("added again after Remove: %+v", v)
	}
}

// A server that does not start is an error in words, kept as "failed"
// with it, and Always allow needs a tool rehome has seen.
func TestMCPServerFailed(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Helper"})
	if err != nil {
		t.Fatal(err)
	}
	m := c.MCPServers()
	if err := m.Add(a.ID, mcphost.Server{Name: "ghost", Command: []string{"/nonexistent/mcp-server-ghost"}}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetAlwaysAllow(a.ID, "ghost", "x", true); err == nil || !strings.Contains(err.Error(), "Test first") {
		t.Errorf("Always allow before a test: %v", err)
	}
	_, err = m.Check(t.Context(), a.ID, "ghost")
	if !errors.Is(err, mcphost.ErrBadServer) || !strings.Contains(err.Error(), "mcp-server-ghost") {
		t.Fatalf("a command that is not there: %v", err)
	}
	v := mcpView(t, c, a.ID, "ghost")
	if v.State != "failed" || !strings.Contains(v.Error, "mcp-server-ghost") {
		t.Fatalf("kept: %+v", v)
	}
}

// The audit counts an assistant's MCP tools (from what Test listed), says
// a server not listed yet, and on an air-gapped machine puts a server on
// the internet under "You rebuild"; the verdict does not change.
func TestAuditCountsMCPTools(t *testing.T) {
	cmd := everythingServer(t)
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Data Analyst", Instructions: "Analyse data."})
	if err != nil {
		t.Fatal(err)
	}
	vram, ram := int64(24<<30), int64(64<<30)
	req := audit.Request{AssistantIDs: []string{a.ID}, VRAMBytes: &vram, RAMBytes: &ram}
	before, err := c.Audits().Evaluate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if before.Assistants[0].MCP != nil {
		t.Fatalf("no MCP server, yet: %+v", before.Assistants[0].MCP)
	}
	m := c.MCPServers()
	if err := m.Add(a.ID, mcphost.Server{Name: "everything", Command: cmd}); err != nil {
		t.Fatal(err)
	}
	v, err := m.Check(t.Context(), a.ID, "everything")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(a.ID, mcphost.Server{Name: "web", URL: "https://mcp.example.com/mcp"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(a.ID, mcphost.Server{Name: "local", URL: "http://127.0.0.1:9/mcp", Off: true}); err != nil {
		t.Fatal(err)
	}
	rec, err := c.Audits().Evaluate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := rec.Assistants[0].MCP
	want := len(v.Tools)
	if got == nil || got.Category != audit.Hosts || !strings.HasPrefix(got.Headline, strings.Join([]string{itoa(want), "tools from 2 MCP servers (1 not listed yet)"}, " ")) {
		t.Fatalf("the audit's MCP line: %+v", got)
	}
	caveats := strings.Join(got.Caveats, " | ")
	for _, w := range []string{"Reached over the internet: web (mcp.example.com)", "Not listed yet", "Switched off, its tools not offered: local"} {
		if !strings.Contains(caveats, w) {
			t.Errorf("caveats %q lack %q", caveats, w)
		}
	}
	if rec.Assistants[0].Verdict.Decision != before.Assistants[0].Verdict.Decision || rec.Assistants[0].Economics.Hours != before.Assistants[0].Economics.Hours {
		t.Errorf("MCP servers changed the verdict: %+v → %+v", before.Assistants[0].Verdict, rec.Assistants[0].Verdict)
	}
	req.AirGapped = true
	rec, err = c.Audits().Evaluate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Assistants[0].MCP; got.Category != audit.Rebuild || got.Label != "You rebuild" || !strings.Contains(strings.Join(got.Caveats, " "), "air-gapped machine cannot reach it: web (mcp.example.com)") {
		t.Fatalf("air-gapped: %+v", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The import of another host's file: the servers listed first without
// their variables' values; a refused confirmation adds none; what the
// host keeps off comes off; a name the assistant has already is said in
// Failed, the rest added.
func TestMCPImport(t *testing.T) {
	data, err := os.ReadFile("../mcphost/testdata/hostconfig/jan_default.json")
	if err != nil {
		t.Fatal(err)
	}
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Researcher"})
	if err != nil {
		t.Fatal(err)
	}
	m := c.MCPServers()
	src := MCPSource{Text: string(data)}
	prev, err := m.Preview(src)
	if err != nil || len(prev) != 8 {
		t.Fatalf("preview: %d %v", len(prev), err)
	}
	raw, _ := json.Marshal(prev)
	if strings.Contains(string(raw), "YOUR_SERPER_API_KEY_HERE") || !strings.Contains(string(raw), "SERPER_API_KEY") {
		t.Fatalf("the preview shows a variable's value, or not its name: %s", raw)
	}
	var asked []string
	no := errors.New("not confirmed")
	if _, err := m.Import(a.ID, src, []string{"fetch", "exa"}, func(who string, l []mcphost.Server) error {
		if who != "Researcher" {
			t.Errorf("asked about %q", who)
		}
		for _, s := range l {
			asked = append(asked, s.Name)
		}
		return no
	}); !errors.Is(err, no) {
		t.Fatalf("refused: %v", err)
	}
	if l, _ := m.List(a.ID); len(l) != 0 || !slices.Equal(asked, []string{"exa", "fetch"}) {
		t.Fatalf("refused, yet added %+v (asked about %v)", l, asked)
	}
	if err := m.Add(a.ID, mcphost.Server{Name: "fetch", Command: []string{"uvx", "mcp-server-fetch"}}); err != nil {
		t.Fatal(err)
	}
	res, err := m.Import(a.ID, src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 7 || len(res.Failed) != 1 || res.Failed[0].Name != "fetch" || !strings.Contains(res.Failed[0].Error, "already") {
		t.Fatalf("import: %+v", res)
	}
	if v := mcpView(t, c, a.ID, "serper"); v.On || v.State != "off" {
		t.Errorf("Jan keeps serper off; here: %+v", v)
	}
	if v := mcpView(t, c, a.ID, "exa"); !v.On || v.Kind != "http" {
		t.Errorf("exa: %+v", v)
	}
	if _, err := m.Import(a.ID, src, []string{"nothing-of-that-name"}, nil); !errors.Is(err, mcphost.ErrBadServer) {
		t.Errorf("only names none of its servers: %v", err)
	}
	if _, err := m.Preview(MCPSource{Host: "winamp"}); !errors.Is(err, mcphost.ErrBadServer) {
		t.Errorf("an unknown host: %v", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	files, err := m.HostFiles()
	if err != nil || len(files) != 4 || files[0].Found {
		t.Fatalf("host files in an empty home: %+v %v", files, err)
	}
	lm := filepath.Join(home, ".lmstudio", "mcp.json")
	os.MkdirAll(filepath.Dir(lm), 0o700)
	os.WriteFile(lm, data, 0o600)
	if files, _ := m.HostFiles(); !files[0].Found || files[0].Label != "LM Studio" {
		t.Fatalf("LM Studio's file: %+v", files[0])
	}
	if prev, err := m.Preview(MCPSource{Host: "lmstudio"}); err != nil || len(prev) != 8 {
		t.Fatalf("preview of LM Studio's file: %d %v", len(prev), err)
	}
}
