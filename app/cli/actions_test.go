package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/internal/testsupport/llmtest"
)

const cliCanary = "sk-cli-canary-91c2d7"

// shopServer is a real API on 127.0.0.1 for the CLI's action tests: it
// demands the bearer key and logs what it was asked.
func shopServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+cliCanary {
			http.Error(w, `{"error":"no key"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "POST" {
			w.WriteHeader(201)
			fmt.Fprint(w, `{"id": "o-43", "total": 3}`)
			return
		}
		fmt.Fprintf(w, `{"id": %q, "total": 12.5}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, hits...) }
}

func shopSchemaFile(t *testing.T, url string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "backend", "actions", "testdata", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "shop.yaml")
	os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "SERVER", url)), 0o644)
	return p
}

// rehome actions add / list / test / rm against a real API: the key read
// from stdin and never printed; a consequential call with no terminal is
// declined, with --yes made; on a terminal the user is asked.
func TestActionsCLI(t *testing.T) {
	home := t.TempDir()
	srv, seen := shopServer(t)
	schemaPath := shopSchemaFile(t, srv.URL)
	id := addAssistant(t, home, "--name", "Shop")["id"].(string)

	wantUsageError(t, rehomeCLI(t, home, "actions", "add", id), "ASSISTANT and SCHEMA")
	wantUsageError(t, rehomeCLIIn(t, home, strings.NewReader("x"), "actions", "add", id, "-", "--key-stdin"), "cannot both come from standard input")
	r := rehomeCLI(t, home, "actions", "add", id, schemaPath, "--auth", "bearer")
	if r.code != 1 || !strings.Contains(r.stderr, "--key-stdin") {
		t.Fatalf("bearer without a key: %+v", r)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get: {responses: {'200': {description: ok}}}\n"), 0o644)
	r = rehomeCLI(t, home, "actions", "add", id, bad)
	if r.code != 1 || !strings.Contains(r.stderr, "paths./a.get: no operationId") || !strings.Contains(r.stderr, "servers: missing") {
		t.Fatalf("bad schema: %+v", r)
	}

	r = rehomeCLIIn(t, home, strings.NewReader(cliCanary+"\n"), "actions", "add", id, schemaPath, "--auth", "bearer", "--key-stdin", "--allow-local")
	if r.code != 0 || !strings.Contains(r.stdout, "added shop (7 operations, auth bearer)") || !strings.Contains(r.stdout, "confirm every call") {
		t.Fatalf("add: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "list", id, "--json")
	var list []struct {
		Name       string
		HasKey     bool `json:"has_key"`
		Operations []struct{ ID, Rule string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || !list[0].HasKey || len(list[0].Operations) != 7 {
		t.Fatalf("list: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "test", id, "getOrder", "--args", `{"id": "o-42"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 200 from GET") || !strings.Contains(r.stdout, `"total": 12.5`) {
		t.Fatalf("test getOrder: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "test", id, "placeOrder", "--args", `{"sku": "A1"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "declined") || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("unconfirmed POST without a terminal: %+v", r)
	}
	for _, h := range seen() {
		if strings.HasPrefix(h, "POST") {
			t.Fatalf("a declined POST was sent: %v", seen())
		}
	}
	r = rehomeCLI(t, home, "actions", "test", id, "placeOrder", "--args", `{"sku": "A1"}`, "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 201") {
		t.Fatalf("--yes: %+v", r)
	}
	// A real terminal (script gives the command a pty): asked, "n" denies, "y" allows.
	if _, err := exec.LookPath("script"); err == nil {
		posts := func() int {
			n := 0
			for _, h := range seen() {
				if strings.HasPrefix(h, "POST") {
					n++
				}
			}
			return n
		}
		before := posts()
		for _, c := range []struct {
			answer string
			made   int
		}{{"n", 0}, {"y", 1}} {
			cmd := exec.Command("script", "-qec", fmt.Sprintf("%s actions test %s placeOrder --args '{\"sku\": \"B2\"}'", rehomeBin, id), "/dev/null")
			cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
			cmd.Stdin = strings.NewReader(c.answer + "\n")
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), "Shop wants to call placeOrder (POST on 127.0.0.1") || strings.Contains(string(out), "always allow") {
				t.Fatalf("terminal prompt: %s", out)
			}
			if got := posts() - before; got != c.made {
				t.Fatalf("answer %q: %d POSTs made, want %d\n%s", c.answer, got, c.made, out)
			}
		}
	}
	for _, out := range []string{r.stdout, r.stderr, rehomeCLI(t, home, "actions", "list", id).stdout, rehomeCLI(t, home, "assistants", "show", id, "--json").stdout} {
		if strings.Contains(out, cliCanary) {
			t.Fatalf("the key was printed: %s", out)
		}
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), cliCanary) && filepath.Base(p) != "action-secrets.json" {
			t.Errorf("the key is in %s", p)
		}
		return nil
	})
	r = rehomeCLI(t, home, "actions", "rm", id, "shop")
	if r.code != 0 {
		t.Fatalf("rm: %+v", r)
	}
	if r = rehomeCLI(t, home, "actions", "list", id); !strings.Contains(r.stdout, "no actions") {
		t.Fatalf("after rm: %+v", r)
	}
}

// A question before the flags (`rehome ask hello --server …`) parsed
// without a panic: parseInterspersed read args[-1] when the first
// argument was a word.
func TestAskQuestionFirst(t *testing.T) {
	r := rehomeCLI(t, t.TempDir(), "ask", "hello", "--server", "http://127.0.0.1:1/v1")
	if r.code != 1 || strings.Contains(r.stderr, "panic") || !strings.Contains(r.stderr, "no OpenAI-compatible model server answered") {
		t.Fatalf("question first: %+v", r)
	}
}

// rehome ask with an assistant's action, against the recorded model:
// without a terminal and --yes the consequential POST is declined and the
// model told; with --yes it is made. Needs Podman (ask starts the
// sandbox's engine; no cell runs).
func TestAskActionsCLI(t *testing.T) {
	needPodman(t)
	home := t.TempDir()
	srv, seen := shopServer(t)
	id := addAssistant(t, home, "--name", "Shop")["id"].(string)
	if r := rehomeCLIIn(t, home, strings.NewReader(cliCanary+"\n"), "actions", "add", id, shopSchemaFile(t, srv.URL), "--auth", "bearer", "--key-stdin", "--allow-local"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	posts := func() int {
		n := 0
		for _, h := range seen() {
			if strings.HasPrefix(h, "POST") {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		yes  bool
		made int
		want string
	}{{false, 0, "declined"}, {true, 1, "HTTP 201"}} {
		model := llmtest.Replay(t, filepath.Join("..", "..", "backend", "llm", "testdata"), "action-tools")
		args := []string{"ask", "--assistant", id, "--server", model.Base(), "--model", "qwen2.5:7b", "--json"}
		if c.yes {
			args = append(args, "--yes")
		}
		r := rehomeCLI(t, home, append(args, "What does o-42 total? Then order one A1.")...)
		if r.code != 0 {
			t.Fatalf("ask (yes=%v): %+v", c.yes, r)
		}
		var out struct {
			Turns []struct {
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
		if len(fed) != 2 || !strings.Contains(fed[0], "HTTP 200") || !strings.Contains(fed[1], c.want) {
			t.Fatalf("yes=%v: tools fed %q", c.yes, fed)
		}
		if got := posts(); got != c.made {
			t.Fatalf("yes=%v: %d POSTs, want %d", c.yes, got, c.made)
		}
		if strings.Contains(r.stdout+r.stderr, cliCanary) {
			t.Fatal("the key was printed")
		}
	}
}
