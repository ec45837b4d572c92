package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"rehome/backend/actions"
	"rehome/backend/llm"
)

// everything is the reference MCP server (npm @modelcontextprotocol/
// server-everything, installed into build/mcp by build/setup.sh test).
func everything(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs("../../build/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("REHOME_REQUIRE_TOOLS") == "1" {
			t.Fatalf("server-everything is not installed (%v): run build/setup.sh test", err)
		}
		t.Skip("skipped: server-everything is not installed (build/setup.sh test installs it)")
	}
	return p
}

func tools(t *testing.T, c *Conn, u Use) map[string]llm.LoopTool {
	t.Helper()
	ts, _, err := c.LoopTools(t.Context(), u, map[string]bool{"python": true, "file_search": true})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]llm.LoopTool{}
	for _, lt := range ts {
		m[lt.Name] = lt
	}
	return m
}

var allow = func(context.Context, actions.Ask) (actions.Decision, error) { return actions.AllowOnce, nil }

// The reference server over stdio: its tools join the loop under its
// name; a call that needs confirming is not made without an answer; its
// environment holds only what rehome gives it and the user named.
func TestEverythingStdio(t *testing.T) {
	srv := everything(t)
	t.Setenv("REHOME_CANARY_SECRET", "canary-7731")
	c, err := Connect(t.Context(), Server{Name: "everything", Command: []string{"node", srv, "stdio"}, Env: []string{"GREETING=hello"}}, t.TempDir(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := tools(t, c, Use{Assistant: "A"})
	for _, want := range []string{"everything_echo", "everything_get-sum", "everything_get-env"} {
		if _, ok := m[want]; !ok {
			t.Fatalf("%s missing: %v", want, keysOf(m))
		}
	}
	// echo says readOnlyHint: it runs unasked.
	if out := m["everything_echo"].Call(t.Context(), llm.ToolInput{Arguments: `{"message": "hi there"}`}); out.Error != "" || !strings.Contains(out.Text, "hi there") {
		t.Fatalf("echo: %+v", out)
	}
	// toggle-simulated-logging changes something (not read-only, not
	// destructive): not made unasked; "Always allow" asks once.
	toggle := m["everything_toggle-simulated-logging"]
	if out := toggle.Call(t.Context(), llm.ToolInput{Arguments: `{}`}); out.Error == "" || !strings.Contains(out.Text, "nobody could be asked") {
		t.Fatalf("a tool that changes something ran unconfirmed: %+v", out)
	}
	asked, kept := 0, ""
	always := func(_ context.Context, a actions.Ask) (actions.Decision, error) {
		asked++
		if !a.AlwaysOffered || a.Operation != "toggle-simulated-logging" {
			t.Errorf("ask %+v", a)
		}
		return actions.AllowAlways, nil
	}
	m = tools(t, c, Use{Assistant: "A", Confirm: always, Allow: func(tool string) error { kept = tool; return nil }})
	for range 2 {
		if out := m["everything_toggle-simulated-logging"].Call(t.Context(), llm.ToolInput{Arguments: `{}`}); out.Error != "" {
			t.Fatalf("toggle: %+v", out)
		}
	}
	if asked != 1 || kept != "toggle-simulated-logging" {
		t.Fatalf("Always allow: asked %d times, kept %q", asked, kept)
	}
	m = tools(t, c, Use{Assistant: "A", Confirm: allow})
	out := m["everything_get-env"].Call(t.Context(), llm.ToolInput{Arguments: `{}`})
	if !strings.Contains(out.Text, "GREETING") || strings.Contains(out.Text, "canary-7731") || strings.Contains(out.Text, "REHOME_") {
		t.Fatalf("the server's environment: %s", out.Text)
	}
}

func keysOf(m map[string]llm.LoopTool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The reference server over Streamable HTTP on 127.0.0.1.
func TestEverythingHTTP(t *testing.T) {
	srv := everything(t)
	port := freePort(t)
	cmd := exec.Command("node", srv, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var c *Conn
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if c, err = Connect(t.Context(), Server{Name: "web", URL: url}, "", DefaultLimits); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := tools(t, c, Use{Confirm: allow})
	out := m["web_get-sum"].Call(t.Context(), llm.ToolInput{Arguments: `{"a": 2, "b": 40}`})
	if out.Error != "" || !strings.Contains(out.Text, "42") {
		t.Fatalf("get-sum over HTTP: %+v", out)
	}
}

func hostile(t *testing.T, mode string, lim Limits) (*Conn, error) {
	t.Helper()
	script, _ := filepath.Abs("testdata/hostile.py")
	return Connect(t.Context(), Server{Name: "h", Command: []string{"/usr/bin/python3", script, mode}}, t.TempDir(), lim)
}

func heapMiB() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc >> 20
}

// Hostile servers are bounded and said so: 10,000 tools (128 kept, the
// rest said left out), a 100 MB result (refused, memory bounded), a
// server that never answers (the connect bound), a tool that never
// returns (the call bound), stdout before the handshake, tools named
// like built-ins (never shadowing them); the server sees no secret of
// rehome's and none of its open files.
func TestHostileServers(t *testing.T) {
	c, err := hostile(t, "many", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ts, notes, _ := c.LoopTools(t.Context(), Use{}, map[string]bool{})
	if len(ts) != 128 || len(notes) != 1 || !strings.Contains(notes[0], "more than 128") {
		t.Fatalf("10,000 tools: %d kept, notes %v", len(ts), notes)
	}
	c.Close()

	before := heapMiB()
	c, err = hostile(t, "big", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	out := tools(t, c, Use{})["h_big"].Call(t.Context(), llm.ToolInput{Arguments: `{}`})
	if out.Error == "" {
		t.Fatalf("a 100 MB result was taken: %d characters", len(out.Text))
	}
	if grew := heapMiB() - before; grew > 64 {
		t.Fatalf("the heap grew %d MiB for a refused 100 MB result", grew)
	}
	c.Close()

	lim := DefaultLimits
	lim.Connect, lim.Call = 2*time.Second, 2*time.Second
	start := time.Now()
	if _, err := hostile(t, "silent", lim); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("a silent server: %v", err)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatal("a silent server held the connect past its bound")
	}
	c, err = hostile(t, "slow", lim)
	if err != nil {
		t.Fatal(err)
	}
	if out := tools(t, c, Use{})["h_slow"].Call(t.Context(), llm.ToolInput{Arguments: `{}`}); !strings.Contains(out.Error, "no answer within") {
		t.Fatalf("a call that never returns: %+v", out)
	}
	c.Close()

	if c, err := hostile(t, "noise", DefaultLimits); err == nil {
		// The SDK may skip the noise; then the tools must still work.
		if out := tools(t, c, Use{})["h_peek"].Call(t.Context(), llm.ToolInput{Arguments: `{}`}); out.Error != "" {
			t.Fatalf("after noise: %+v", out)
		}
		c.Close()
	} else if !strings.Contains(err.Error(), "could not connect") {
		t.Fatalf("noise before the handshake: %v", err)
	}

	c, err = hostile(t, "builtin", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	m := tools(t, c, Use{})
	if _, ok := m["python"]; ok {
		t.Fatal("a server's tool took the name python")
	}
	if _, ok := m["h_python"]; !ok {
		t.Fatalf("tools %v", keysOf(m))
	}
	c.Close()

	// What the server can see: its own folder, no secret, no open file of
	// rehome's (a database held open by this process stands for rehome.db).
	t.Setenv("REHOME_CANARY_SECRET", "canary-7731")
	held, _ := os.Create(filepath.Join(t.TempDir(), "rehome.db"))
	defer held.Close()
	c, err = hostile(t, "peek", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen struct {
		Env map[string]string
		Fds []string
		Cwd string
	}
	out = tools(t, c, Use{})["h_peek"].Call(t.Context(), llm.ToolInput{Arguments: `{}`})
	if err := json.Unmarshal([]byte(out.Text), &seen); err != nil {
		t.Fatalf("peek: %v %s", err, out.Text)
	}
	for k, v := range seen.Env {
		if strings.Contains(v, "canary-7731") || strings.HasPrefix(k, "REHOME") {
			t.Fatalf("the server saw %s=%s", k, v)
		}
	}
	for _, f := range seen.Fds {
		if strings.HasSuffix(f, "rehome.db") {
			t.Fatalf("the server holds rehome's file %s", f)
		}
	}
	if len(seen.Env) > 6 {
		t.Fatalf("the server got more than the clean environment: %v", seen.Env)
	}
}
