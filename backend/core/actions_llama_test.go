package core

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	busy    sync.WaitGroup // answers being passed on
	mu      sync.Mutex
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
		w.busy.Add(1)
		defer w.busy.Done()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &teeWriter{ResponseWriter: rw}
		proxy.ServeHTTP(rec, r)
		w.mu.Lock()
		w.bodies = append(w.bodies, string(body))
		w.answers = append(w.answers, rec.buf.Bytes())
		w.mu.Unlock()
	}))
	t.Cleanup(w.Close)
	return w
}

// teeWriter keeps a copy of what it writes, flushed as it comes.
type teeWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (t *teeWriter) Write(p []byte) (int, error) { t.buf.Write(p); return t.ResponseWriter.Write(p) }
func (t *teeWriter) Flush()                      { t.ResponseWriter.(http.Flusher).Flush() }

// take is what passed since the last take, once every answer is through.
func (w *wireTap) take() (bodies []string, answers [][]byte) {
	w.busy.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	bodies, answers = w.bodies, w.answers
	w.bodies, w.answers = nil, nil
	return bodies, answers
}

// record writes answers as the scenario folder of backend/llm/testdata.
func record(t *testing.T, scenario string, answers [][]byte) {
	t.Helper()
	dir := filepath.Join("..", "llm", "testdata", scenario)
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
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("real-Podman test cannot run: %v", err)
		}
		t.Skip("skipped: no podman here (an ask starts the sandbox's engine); set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
	script := tinymodel.ActionScript()
	srv := llamatest.Start(t, script)
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	a, _ := withAction(t, c, api.URL)
	tap := newWireTap(t, srv.Root)
	ask := func(confirm actions.Confirm) *llm.Transcript {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		q, err := c.Asks().Prepare(ctx, AskRequest{AssistantID: a.ID, Server: tap.URL + "/v1", Model: llamatest.Alias,
			Question: "What does order o-42 total? Then order one A1.", Confirm: confirm})
		if err != nil {
			t.Fatal(err)
		}
		tr := q.Run(ctx, nil)
		if tr.Stopped != llm.StopAnswered || tr.Answer != strings.Join(script.Answer, "") {
			t.Fatalf("stopped %s (%s %s), answer %q", tr.Stopped, tr.Error, tr.Note, tr.Answer)
		}
		return tr
	}
	uses := func(tr *llm.Transcript) []llm.ToolUse {
		var out []llm.ToolUse
		for _, tu := range tr.Turns {
			out = append(out, tu.Tools...)
		}
		return out
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
