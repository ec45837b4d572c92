package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// inspector is the MCP Inspector's CLI (npm @modelcontextprotocol/
// inspector 2.12.0, installed into build/mcp by build/setup.sh test): a
// client of `rehome mcp serve` nobody here wrote. Missing, the test
// skips, and fails under REHOME_REQUIRE_TOOLS (make test).
func inspector(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs("../../build/mcp/node_modules/.bin/mcp-inspector")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("REHOME_REQUIRE_TOOLS") == "1" {
			t.Fatalf("the MCP Inspector is not installed (%v): run build/setup.sh test", err)
		}
		t.Skip("skipped: the MCP Inspector is not installed (build/setup.sh test installs it)")
	}
	return p
}

// inspect runs the Inspector's CLI against target and decodes its JSON.
func inspect(t *testing.T, insp, home string, target []string, method ...string) map[string]any {
	t.Helper()
	args := append([]string{"--cli"}, target...)
	args = append(args, method...)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, insp, args...)
	cmd.Env = append(cleanEnv(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"))
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\n%s", method, err, out)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector %v printed %s", method, out)
	}
	if e, ok := v["error"]; ok {
		t.Fatalf("inspector %v: %v", method, e)
	}
	return v
}

func mcpAssistant(t *testing.T, home string) {
	t.Helper()
	if r := rehomeCLI(t, home, "assistants", "add", "--name", "Launch notes", "--instructions", "Answer from the notes; cite them.", "--starter", "When is the launch?"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	doc := filepath.Join(t.TempDir(), "notes.md")
	os.WriteFile(doc, []byte("# Plan\n\nThe launch is on 12 March, in Lyon.\n"), 0o600)
	if r := rehomeCLI(t, home, "knowledge", "add", "Launch notes", doc); r.code != 0 {
		t.Fatal(r.stderr)
	}
}

// The MCP Inspector lists and calls rehome's tools over stdio, gets the
// prompt and reads the knowledge file as a resource; then over
// Streamable HTTP with the printed token (and is refused without it).
func TestMCPServeInspector(t *testing.T) {
	insp := inspector(t)
	home := t.TempDir()
	mcpAssistant(t, home)
	stdio := []string{"-e", "REHOME_HOME=" + home, rehomeBin, "mcp", "serve", "--assistant", "Launch notes"}
	tools := inspect(t, insp, home, stdio, "--method", "tools/list")
	b, _ := json.Marshal(tools)
	for _, want := range []string{`"name":"file_search"`, `"name":"python"`, `"name":"upload_file"`, `"readOnlyHint":true`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("tools/list lacks %s: %s", want, b)
		}
	}
	call := inspect(t, insp, home, stdio, "--method", "tools/call", "--tool-name", "file_search", "--tool-arg", "query=launch date")
	b, _ = json.Marshal(call)
	if !strings.Contains(string(b), "12 March") || !strings.Contains(string(b), `"type":"resource_link"`) {
		t.Fatalf("file_search: %s", b)
	}
	pr := inspect(t, insp, home, stdio, "--method", "prompts/get", "--prompt-name", "assistant")
	if b, _ = json.Marshal(pr); !strings.Contains(string(b), "cite them") {
		t.Fatalf("prompt: %s", b)
	}
	res := inspect(t, insp, home, stdio, "--method", "resources/list")
	b, _ = json.Marshal(res)
	uri := regexp.MustCompile(`rehome://knowledge/[a-z0-9]+/notes\.md`).FindString(string(b))
	if uri == "" {
		t.Fatalf("resources: %s", b)
	}
	rd := inspect(t, insp, home, stdio, "--method", "resources/read", "--uri", uri)
	if b, _ = json.Marshal(rd); !strings.Contains(string(b), "in Lyon") {
		t.Fatalf("read: %s", b)
	}

	// Streamable HTTP on loopback, with the token printed once.
	srv := exec.Command(rehomeBin, "mcp", "serve", "--assistant", "Launch notes", "--http", "127.0.0.1:0")
	srv.Env = append(cleanEnv(), "REHOME_HOME="+home)
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	sc := bufio.NewScanner(stderr)
	var url, token string
	for (url == "" || token == "") && sc.Scan() {
		line := sc.Text()
		if m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(line); m != nil {
			url = m[1]
		}
		if m := regexp.MustCompile(`token \(shown once\): (\S+)`).FindStringSubmatch(line); m != nil {
			token = m[1]
		}
	}
	if url == "" || token == "" {
		t.Fatal("the HTTP server printed no address or token")
	}
	httpT := []string{"--transport", "http", "--server-url", url, "--header", "Authorization: Bearer " + token}
	call = inspect(t, insp, home, httpT, "--method", "tools/call", "--tool-name", "file_search", "--tool-arg", "query=Lyon launch")
	if b, _ = json.Marshal(call); !strings.Contains(string(b), "Lyon") {
		t.Fatalf("file_search over HTTP: %s", b)
	}
	cmd := exec.Command(insp, "--cli", "--transport", "http", "--server-url", url, "--method", "tools/list")
	cmd.Env = append(cleanEnv(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "c.json"))
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), "file_search") {
		t.Fatalf("tools listed without the token: %s", out)
	}
}

// `rehome mcp config --write` adds rehome to a client's file and keeps
// its other servers and fields; a file that is not JSON is left alone.
func TestMCPConfigWrite(t *testing.T) {
	home := t.TempDir()
	f := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(f, []byte(`{"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}`), 0o600)
	if r := rehomeCLI(t, home, "mcp", "config", "--client", "lmstudio", "--assistant", "Launch notes", "--write", "--file", f); r.code != 0 {
		t.Fatal(r.stderr)
	}
	var doc map[string]any
	data, _ := os.ReadFile(f)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	servers := doc["mcpServers"].(map[string]any)
	if servers["other"] == nil || doc["theme"] != "dark" || servers["rehome"] == nil {
		t.Fatalf("merged %s", data)
	}
	args, _ := json.Marshal(servers["rehome"].(map[string]any)["args"])
	if string(args) != `["mcp","serve","--assistant","Launch notes"]` {
		t.Fatalf("args %s", args)
	}
	if _, err := os.Stat(f + ".bak"); err != nil {
		t.Fatal("no copy of the old file")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	r := rehomeCLI(t, home, "mcp", "config", "--client", "vscode", "--assistant", "A", "--write", "--file", bad)
	if after, _ := os.ReadFile(bad); r.code == 0 || string(after) != "{not json" || !strings.Contains(r.stderr, "not JSON") {
		t.Fatalf("a broken file: %d %q %q", r.code, r.stderr, after)
	}
	r = rehomeCLI(t, home, "mcp", "config", "--client", "vscode", "--assistant", "A")
	if r.code != 0 || !strings.Contains(r.stdout, `"servers"`) || !strings.Contains(r.stdout, `"type": "stdio"`) {
		t.Fatalf("vscode snippet %q", r.stdout)
	}
	wantUsageError(t, rehomeCLI(t, home, "mcp", "config", "--client", "emacs", "--assistant", "A"), "--client")
}
