package core

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// The editor's preview answers with the instructions as typed (not as
// saved) and the earlier preview turns, and keeps nothing: no
// conversation is stored.
func TestPreviewKeepsNothing(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Pirate", Instructions: "the saved instructions"})
	if err != nil {
		t.Fatal(err)
	}
	rec := llmtest.Replay(t, "../llm/testdata", "escapes-answer")
	tr, err := c.Asks().Preview(t.Context(), PreviewRequest{AssistantID: a.ID, Instructions: "Answer as a pirate, arr.",
		Server: rec.Base(), Model: "qwen2.5:7b", Question: "Who are you?",
		History: []PreviewTurn{{Question: "earlier question", Answer: "earlier answer"}}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stopped != llm.StopAnswered || tr.Answer == "" {
		t.Fatalf("stopped %s: %q %s", tr.Stopped, tr.Answer, tr.Error)
	}
	b := rec.Bodies()
	if len(b) != 1 || !strings.Contains(b[0], "Answer as a pirate, arr.") || strings.Contains(b[0], "the saved instructions") || !strings.Contains(b[0], "earlier answer") {
		t.Fatalf("the model was not given the typed instructions and the history: %v", b)
	}
	if list, err := c.Conversations().List(0); err != nil || len(list) != 0 {
		t.Fatalf("a preview kept %d conversations (%v)", len(list), err)
	}
	if _, err := c.Asks().Preview(t.Context(), PreviewRequest{Question: "  "}); err != ErrNoQuestion {
		t.Fatalf("an empty question: %v", err)
	}
}

// A schema is fetched from a URL within its bounds; an answer that is
// too large, too slow, not 200, binary or not http(s) is refused in words.
func TestFetchSchemaBounded(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	schema := `{"openapi": "3.1.0", "info": {"title": "Shop"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi.json":
			w.Write([]byte(schema))
		case "/huge":
			w.Write([]byte(strings.Repeat("x", MaxSchemaBytes+10)))
		case "/binary":
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(SchemaTimeout + 5*time.Second):
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	got, err := c.Assistants().FetchSchema(t.Context(), srv.URL+"/openapi.json")
	if err != nil || got != schema {
		t.Fatalf("fetched %q, %v", got, err)
	}
	for path, want := range map[string]string{
		"/huge":    "is over 1 MiB",
		"/binary":  "is binary data, not a schema",
		"/missing": "answered HTTP 404",
	} {
		if _, err := c.Assistants().FetchSchema(t.Context(), srv.URL+path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://x.example.com/a", "not a url"} {
		if _, err := c.Assistants().FetchSchema(t.Context(), u); err == nil || !strings.Contains(err.Error(), "not an http or https address") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if testing.Short() {
		return
	}
	start := time.Now()
	if _, err := c.Assistants().FetchSchema(t.Context(), srv.URL+"/slow"); err == nil || !strings.Contains(err.Error(), "did not answer within 15s") {
		t.Errorf("/slow: %v", err)
	}
	if d := time.Since(start); d > SchemaTimeout+3*time.Second {
		t.Errorf("the slow fetch took %s", d)
	}
}

// A schema file is read within the same bounds.
func TestReadSchemaFileBounded(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, err := c.Assistants().ReadSchemaFile(write("shop.yaml", "openapi: 3.1.0\n")); err != nil || got != "openapi: 3.1.0\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	for name, body := range map[string]string{
		"big.json":  strings.Repeat(" ", MaxSchemaBytes+1),
		"logo.png":  "\x89PNG\r\n\x1a\n\x00",
		"empty.yml": "\n",
	} {
		if _, err := c.Assistants().ReadSchemaFile(write(name, body)); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "is it the right file?") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
