package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// rehome ask uses a third-party MCP server's tool: the reference
// server-everything over stdio, added with `rehome mcp add`; the tiny
// model on the real llama-server calls its get-sum (read-only by its
// annotations, so made unasked) and answers from it.
func TestAskMCPServerTool(t *testing.T) {
	needPodman(t)
	insp := inspector(t) // build/mcp is installed
	everything := filepath.Join(filepath.Dir(filepath.Dir(insp)), "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(everything); err != nil {
		t.Fatal(err)
	}
	script := tinymodel.Script{
		Calls:  []tinymodel.Call{{Before: []string{"Let me add", " them up."}, Name: "everything_get-sum", Args: []string{`{"a": 2, `, `"b": 40}`}}},
		Answer: []string{"The sum", " is 42."},
	}
	model := llamatest.Start(t, script)
	home := t.TempDir()
	id := addAssistant(t, home, "--name", "Adder")["id"].(string)
	if r := rehomeCLI(t, home, "mcp", "add", "Adder", "everything", "--", "node", everything, "stdio"); r.code != 0 {
		t.Fatalf("mcp add: %+v", r)
	}
	r := rehomeCLI(t, home, "mcp", "test", "Adder", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "everything_get-sum") || !strings.Contains(r.stdout, "runs unasked (read-only)") {
		t.Fatalf("mcp test: %+v", r)
	}
	if r := rehomeCLI(t, home, "mcp", "list", "Adder", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"name": "everything"`) {
		t.Fatalf("mcp list: %+v", r)
	}
	// The record and its bundle carry no command to run elsewhere.
	if r := rehomeCLI(t, home, "assistants", "show", id, "--json"); strings.Contains(r.stdout, "server-everything") {
		t.Fatalf("the assistant's record holds the server: %s", r.stdout)
	}
	r = rehomeCLI(t, home, "ask", "--assistant", id, "--server", model.URL, "--model", llamatest.Alias, "--json", "What is 2 plus 40?")
	if r.code != 0 {
		t.Fatalf("ask: %+v", r)
	}
	var out struct {
		Answer string
		Turns  []struct {
			Tools []struct{ Name, Fed string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var fed []string
	for _, tu := range out.Turns {
		for _, u := range tu.Tools {
			fed = append(fed, u.Name+": "+u.Fed)
		}
	}
	if len(fed) != 1 || !strings.HasPrefix(fed[0], "everything_get-sum: ") || !strings.Contains(fed[0], "42") || out.Answer != "The sum is 42." {
		t.Fatalf("fed %q, answer %q", fed, out.Answer)
	}
	if r := rehomeCLI(t, home, "mcp", "rm", "Adder", "everything"); r.code != 0 {
		t.Fatalf("rm: %+v", r)
	}
}

// mcp add refuses what it cannot use, in words; import takes an MCP
// host's file.
func TestMCPAddAndImport(t *testing.T) {
	home := t.TempDir()
	addAssistant(t, home, "--name", "Adder")
	wantUsageError(t, rehomeCLI(t, home, "mcp", "add", "Adder"), "mcp add takes")
	if r := rehomeCLI(t, home, "mcp", "add", "Adder", "Bad Name!", "--", "node"); r.code != 1 || !strings.Contains(r.stderr, "lower-case") {
		t.Fatalf("bad name: %+v", r)
	}
	if r := rehomeCLI(t, home, "mcp", "add", "Adder", "x", "--url", "file:///etc/passwd"); r.code != 1 || !strings.Contains(r.stderr, "http(s)") {
		t.Fatalf("bad url: %+v", r)
	}
	f := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(f, []byte(`{"mcpServers": {"Everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"B": "2", "A": "1"}}, "remote": {"url": "http://127.0.0.1:9/mcp"}}}`), 0o600)
	if r := rehomeCLI(t, home, "mcp", "import", "Adder", f); r.code != 0 || !strings.Contains(r.stdout, "added everything (stdio)") || !strings.Contains(r.stdout, "added remote (http)") {
		t.Fatalf("import: %+v", r)
	}
	r := rehomeCLI(t, home, "mcp", "list", "Adder", "--json")
	if !strings.Contains(r.stdout, `"A=1"`) || !strings.Contains(r.stdout, `"npx"`) {
		t.Fatalf("list: %s", r.stdout)
	}
	if r := rehomeCLI(t, home, "mcp", "import", "Adder", f); r.code != 1 || !strings.Contains(r.stderr, "already") {
		t.Fatalf("a second import: %+v", r)
	}
	if r := rehomeCLI(t, home, "mcp", "off", "Adder", "remote"); r.code != 0 || !strings.Contains(r.stdout, "offered no more") {
		t.Fatalf("off: %+v", r)
	}
	if r := rehomeCLI(t, home, "mcp", "list", "Adder"); !regexp.MustCompile(`remote\s+http\s+off\s+http://127.0.0.1:9/mcp`).MatchString(r.stdout) || !regexp.MustCompile(`everything\s+stdio\s+on\s+npx`).MatchString(r.stdout) {
		t.Fatalf("list after off: %s", r.stdout)
	}
	if r := rehomeCLI(t, home, "mcp", "on", "Adder", "nothing"); r.code != 1 || !strings.Contains(r.stderr, "has no MCP server nothing") {
		t.Fatalf("on, a server it does not have: %+v", r)
	}
}
