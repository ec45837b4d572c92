package core

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/actions"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// wireTap stands between rehome and a model server: it passes every
// request through and keeps each chat completion's request body and the
// answer's bytes as the server sent them (REHOME_RECORD=1 writes them as
// a recorded wire).
type wireTap struct {
	*httptest.Server
	mu      sync.Mutex
	started int // chat completions asked for
	bodies  []string
	answers [][]byte
}

func newWireTap(t *testing.T, root string) *wireTap {
	t.Helper()
	u, err := url.Parse(root)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	// llama-server closes a kept-alive connection after a streamed answer
	// without saying so: a fresh connection for each request.
	proxy.Transport = &http.Transport{DisableKeepAlives: true}
	w := &wireTap{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			proxy.ServeHTTP(rw, r)
			return
		}
		w.mu.Lock()
		w.started++
		w.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &teeWriter{ResponseWriter: rw}
		keep := func() {
			w.mu.Lock()
			w.bodies = append(w.bodies, string(body))
			w.answers = append(w.answers, bytes.Clone(rec.buf.Bytes()))
			w.mu.Unlock()
		}
		// The answer is whole at [DONE]: llama-server may hold the
		// connection a while after it, and the client has all it needs.
		rec.done = keep
		proxy.ServeHTTP(rec, r)
		if rec.done != nil {
			keep()
		}
	}))
	t.Cleanup(w.Close)
	return w
}

// teeWriter keeps a copy of what it writes, flushed as it comes, and
// calls done once it has written the stream's [DONE].
type teeWriter struct {
	http.ResponseWriter
	buf  bytes.Buffer
	done func()
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if t.done != nil && bytes.HasSuffix(t.buf.Bytes(), []byte("data: [DONE]\n\n")) {
		t.done()
		t.done = nil
	}
	return t.ResponseWriter.Write(p)
}
func (t *teeWriter) Flush() { t.ResponseWriter.(http.Flusher).Flush() }

// take is what passed since the last take, once every answer asked for
// is through (the client has its answer a moment before the tap is done
// copying the server's last bytes).
func (w *wireTap) take() (bodies []string, answers [][]byte) {
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		if len(w.answers) == w.started || time.Now().After(end) {
			break
		}
		w.mu.Unlock()
	}
	defer w.mu.Unlock()
	bodies, answers = w.bodies, w.answers
	w.bodies, w.answers, w.started = nil, nil, 0
	return bodies, answers
}

// askReal asks the assistant's question of the model server at base
// through core.Asks, with confirm, and checks it was answered with want.
func askReal(t *testing.T, c *Core, assistantID, base, question, want string, confirm actions.Confirm) *llm.Transcript {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	q, err := c.Asks().Prepare(ctx, AskRequest{AssistantID: assistantID, Server: base, Model: llamatest.Alias, Question: question, Confirm: confirm})
	if err != nil {
		t.Fatal(err)
	}
	tr := q.Run(ctx, nil)
	if tr.Stopped != llm.StopAnswered || tr.Answer != want {
		t.Fatalf("stopped %s (%s %s), answer %q", tr.Stopped, tr.Error, tr.Note, tr.Answer)
	}
	return tr
}

// uses are the transcript's tool uses, in order.
func uses(tr *llm.Transcript) []llm.ToolUse {
	var out []llm.ToolUse
	for _, tu := range tr.Turns {
		out = append(out, tu.Tools...)
	}
	return out
}

func needPodmanCore(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("real-Podman test cannot run: %v", err)
		}
		t.Skip("skipped: no podman here (an ask starts the sandbox's engine); set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
}

// volatile are the parts of a wire that differ from run to run: the
// ids, the time and the timings.
var volatile = regexp.MustCompile(`"(id|created)":("[^"]*"|\d+)|,"timings":\{[^}]*\}`)

// sameWire fails t unless answers are the recorded scenario's, but for
// their ids, times and timings: the recorded tests replay what this
// server says now.
func sameWire(t *testing.T, scenario string, answers [][]byte) {
	t.Helper()
	for i, a := range answers {
		want, err := os.ReadFile(filepath.Join("..", "llm", "testdata", scenario, fmt.Sprintf("%02d.sse", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if got, rec := volatile.ReplaceAll(a, nil), volatile.ReplaceAll(want, nil); !bytes.Equal(got, rec) {
			t.Fatalf("answer %d is not the recorded %s (record it again: REHOME_RECORD=1):\n%s\nrecorded:\n%s", i+1, scenario, got, rec)
		}
	}
}

// record writes answers as the scenario folder of backend/llm/testdata.
func record(t *testing.T, scenario string, answers [][]byte) {
	t.Helper()
	dir := filepath.Join("..", "llm", "testdata", scenario)
	os.MkdirAll(dir, 0o755)
	for i, a := range answers {
		if err := os.WriteFile(filepath.Join(dir, []string{"01.sse", "02.sse", "03.sse"}[i]), a, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %d answers into %s", len(answers), dir)
}

// A real model calls an action: llama.cpp's llama-server (--jinja, the
// Qwen2.5 template) serving the tiny model taught to call getOrder and
// then placeOrder, asked through core.Asks with the assistant's action
// on a real API on 127.0.0.1. The GET is made with the key and needs no
// confirmation; the consequential POST with nobody to ask is not made
// and the model is told it was declined; allowed once, it is made once.
// REHOME_RECORD=1 writes the declined run's wire as
// backend/llm/testdata/action-tools, which the recorded tests replay.
func TestActionsRealModel(t *testing.T) {
	needPodmanCore(t)
	script := tinymodel.ActionScript()
	srv := llamatest.Start(t, script)
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	a, _ := withAction(t, c, api.URL)
	tap := newWireTap(t, srv.Root)
	ask := func(confirm actions.Confirm) *llm.Transcript {
		t.Helper()
		return askReal(t, c, a.ID, tap.URL+"/v1", "What does order o-42 total? Then order one A1.", strings.Join(script.Answer, ""), confirm)
	}

	// Nobody to ask: the GET is made, the POST is not, the model is told.
	tr := ask(nil)
	u := uses(tr)
	if len(u) != 2 || u[0].Name != "getOrder" || !strings.Contains(u[0].Fed, "HTTP 200") || !strings.Contains(u[0].Fed, `"total": 12.5`) {
		t.Fatalf("the GET's use: %+v", u)
	}
	if u[1].Name != "placeOrder" || !strings.Contains(u[1].Fed, "declined") {
		t.Fatalf("the POST's use: %+v", u[1])
	}
	if got := api.seen(); len(got) != 1 || got[0] != "GET /api/orders/o-42" {
		t.Fatalf("the API saw %v, want the GET only", got)
	}
	bodies, answers := tap.take()
	if len(bodies) != 3 || !strings.Contains(bodies[0], `"name":"placeOrder"`) || !strings.Contains(bodies[2], "declined") {
		t.Fatalf("%d model requests; the last told of the decline: %v", len(bodies), len(bodies) == 3 && strings.Contains(bodies[2], "declined"))
	}
	if bytes.Contains(bytes.Join(answers, nil), []byte(canaryKey)) || strings.Contains(strings.Join(bodies, ""), canaryKey) {
		t.Fatal("the key reached the model server")
	}
	if os.Getenv("REHOME_RECORD") != "" {
		record(t, "action-tools", answers)
	}
	sameWire(t, "action-tools", answers)

	// Allowed once: the POST is made once, after the user saw the
	// operation, the host and the arguments.
	var asked []actions.Ask
	tr = ask(func(_ context.Context, q actions.Ask) (actions.Decision, error) {
		asked = append(asked, q)
		return actions.AllowOnce, nil
	})
	u = uses(tr)
	host := strings.TrimPrefix(api.URL, "http://")
	if len(asked) != 1 || asked[0].Operation != "placeOrder" || asked[0].Method != "POST" || asked[0].Host != host ||
		!strings.Contains(asked[0].Arguments, `"sku"`) || asked[0].AlwaysOffered {
		t.Fatalf("asked %+v", asked)
	}
	if len(u) != 2 || !strings.Contains(u[1].Fed, "HTTP 201") {
		t.Fatalf("the allowed POST's use: %+v", u)
	}
	if got := api.seen(); len(got) != 3 || got[2] != "POST /api/orders" {
		t.Fatalf("the API saw %v, want GET, GET, POST", got)
	}
}

// "Always allow", from a real model: llama-server serving the tiny model
// taught to call noteOrder (x-openai-isConsequential: false), asked
// twice; the user is asked the first time only, and both calls are made.
// REHOME_RECORD=1 writes the first ask's wire as action-note.
func TestActionsRealModelAlwaysAllow(t *testing.T) {
	needPodmanCore(t)
	script := tinymodel.NoteScript()
	srv := llamatest.Start(t, script)
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	a, _ := withAction(t, c, api.URL)
	tap := newWireTap(t, srv.Root)
	asked := 0
	always := func(_ context.Context, q actions.Ask) (actions.Decision, error) {
		if asked++; q.Operation != "noteOrder" || !q.AlwaysOffered {
			t.Errorf("asked %+v", q)
		}
		return actions.AllowAlways, nil
	}
	for i := range 2 {
		tr := askReal(t, c, a.ID, tap.URL+"/v1", "Note on o-42: leave it at the door.", strings.Join(script.Answer, ""), always)
		if u := uses(tr); len(u) != 1 || u[0].Name != "noteOrder" || !strings.Contains(u[0].Fed, "HTTP 200") {
			t.Fatalf("ask %d: uses %+v", i+1, u)
		}
		bodies, answers := tap.take()
		if len(bodies) != 2 || len(answers) != 2 {
			t.Fatalf("ask %d: %d requests and %d answers through the tap, want 2", i+1, len(bodies), len(answers))
		}
		if i == 0 && os.Getenv("REHOME_RECORD") != "" {
			record(t, "action-note", answers)
		}
		sameWire(t, "action-note", answers)
	}
	if got := api.seen(); asked != 1 || len(got) != 2 || got[0] != "PUT /api/orders/o-42/note" || got[1] != got[0] {
		t.Fatalf("asked %d times; the API saw %v", asked, got)
	}
}
