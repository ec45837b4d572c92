package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// promptTap passes requests to a model server and keeps each chat
// completion's request body: what rehome sent the model.
type promptTap struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newPromptTap(t *testing.T, root string) *promptTap {
	u, _ := url.Parse(root)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	proxy.Transport = &http.Transport{DisableKeepAlives: true} // llama-server drops kept-alive connections
	p := &promptTap{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.mu.Lock()
			p.bodies = append(p.bodies, string(body))
			p.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// take returns the bodies since the last take.
func (p *promptTap) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.bodies
	p.bodies = nil
	return b
}

// rehome ask with a real model that saves a memory: llama.cpp's
// llama-server serving the tiny model taught to call memory. The answer
// says "Memory updated" on stderr with the undo command; `rehome memory
// list` has it; a new chat's prompt holds it; `rehome ask --temporary` is
// offered no memory tool, reads none and saves none; `rehome memory undo`
// takes the memory back.
func TestAskMemoryRealModelCLI(t *testing.T) {
	needPodman(t)
	script := tinymodel.MemoryScript()
	model := llamatest.Start(t, script)
	tap := newPromptTap(t, model.Root)
	home := t.TempDir()
	args := []string{"ask", "--server", tap.URL + "/v1", "--model", llamatest.Alias}
	want := strings.Join(script.Answer, "")

	r := rehomeCLI(t, home, append(args, "Remember that I prefer metric units.")...)
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stderr, `rehome: Memory updated: saved "Prefers metric units."`) {
		t.Fatalf("ask: %+v", r)
	}
	i := strings.Index(r.stderr, "undo: rehome memory undo remember:")
	if i < 0 {
		t.Fatalf("no undo command: %s", r.stderr)
	}
	ref := strings.Fields(r.stderr[i+len("undo: rehome memory undo "):])[0]
	ref = strings.TrimSuffix(ref, ")")
	if got := memories(t, home); len(got) != 1 || got[0].Text != "Prefers metric units." || got[0].Source != "model" {
		t.Fatalf("kept: %+v", got)
	}
	tap.take()

	// A new chat reads it.
	if r := rehomeCLI(t, home, append(args, "--json", "How tall is Everest?")...); r.code != 0 {
		t.Fatalf("second chat: %+v", r)
	}
	if b := tap.take(); len(b) == 0 || !savedLine.MatchString(systemPrompt(b[0])) {
		t.Fatalf("the new chat's prompt lacks the memory: %.1500q", b)
	}

	// A temporary chat: no tool offered, no memory read, nothing saved.
	r = rehomeCLI(t, home, append(args, "--temporary", "--json", "Remember that I prefer imperial units.")...)
	if r.code != 0 || !strings.Contains(r.stderr, "a temporary chat: no memory is read or saved") {
		t.Fatalf("temporary: %+v", r)
	}
	var out struct {
		ConversationID string `json:"conversation_id"`
		Turns          []struct {
			Tools []struct{ Name, Error, Ref string }
		}
	}
	json.Unmarshal([]byte(r.stdout), &out)
	if b := tap.take(); len(b) == 0 || strings.Contains(b[0], `"name":"memory"`) || strings.Contains(b[0], "metric") {
		t.Fatalf("the temporary chat got memory: %.1500q", b)
	}
	for _, tu := range out.Turns {
		for _, u := range tu.Tools {
			if u.Name == "memory" {
				t.Fatalf("the temporary chat, offered no memory tool, called it: %+v", u)
			}
		}
	}
	if got := memories(t, home); len(got) != 1 {
		t.Fatalf("a temporary chat saved: %+v", got)
	}
	// Continued, it stays temporary.
	if r := rehomeCLI(t, home, append(args, "--continue", out.ConversationID, "And now?")...); r.code != 0 || !strings.Contains(r.stderr, "a temporary chat") {
		t.Fatalf("continued: %+v", r)
	}
	if b := tap.take(); len(b) == 0 || strings.Contains(b[0], `"name":"memory"`) {
		t.Fatal("a continued temporary chat got the memory tool")
	}

	if r := rehomeCLI(t, home, "memory", "undo", ref); r.code != 0 {
		t.Fatalf("undo %s: %+v", ref, r)
	}
	if got := memories(t, home); len(got) != 0 {
		t.Fatalf("after undo: %+v", got)
	}
}

// savedLine is the saved memory as the prompt's memory block lists it
// (the memory tool's description quotes the same words as an example).
var savedLine = regexp.MustCompile(`(?m)^\d+\. \[\d{4}-\d\d-\d\d\] id=\w+ "Prefers metric units\."$`)

// systemPrompt is a chat request's system prompt ("" if it has none).
func systemPrompt(body string) string {
	var req struct {
		Messages []struct{ Role, Content string }
	}
	if json.Unmarshal([]byte(body), &req) != nil || len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		return ""
	}
	return req.Messages[0].Content
}
