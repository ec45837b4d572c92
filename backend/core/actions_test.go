package core

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

const canaryKey = "sk-canary-7f3a9c21e4d04b6a"

// orderAPI is a real API on 127.0.0.1 that demands the bearer key and
// logs what it was asked.
type orderAPI struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newOrderAPI(t *testing.T) *orderAPI {
	a := &orderAPI{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+canaryKey {
			http.Error(w, `{"error": "no key"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/api/orders/"):
			fmt.Fprintf(w, `{"id": %q, "total": 12.5}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"))
		case r.Method == "PUT" && strings.HasSuffix(r.URL.Path, "/note"):
			fmt.Fprint(w, `{"noted": true}`)
		case r.Method == "POST" && r.URL.Path == "/api/orders":
			w.WriteHeader(201)
			fmt.Fprint(w, `{"id": "o-43", "total": 3}`)
		default:
			http.Error(w, "{}", 404)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *orderAPI) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string{}, a.hits...)
}

func shopSchema(t *testing.T, url string) string {
	b, err := os.ReadFile("../actions/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "SERVER", url)
}

func withAction(t *testing.T, c *Core, api string) (assistant.Assistant, ActionInfo) {
	t.Helper()
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Shop helper", Instructions: "Help with orders."})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, api), Auth: "bearer", AllowLocal: true, Key: canaryKey})
	if err != nil {
		t.Fatal(err)
	}
	return a, info
}

// Add, list, test and remove; the key is in the 0600 file and only there.
func TestActionsAddListTestRemove(t *testing.T) {
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	api := newOrderAPI(t)
	a, info := withAction(t, c, api.URL)
	if info.Name != "shop" || !info.HasKey || info.Auth != "bearer" || len(info.Operations) != 7 {
		t.Fatalf("info %+v", info)
	}
	list, err := c.Actions().List(a.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	rules := map[string]actions.Rule{}
	for _, op := range list[0].Operations {
		rules[op.ID] = op.Rule
	}
	if rules["getOrder"] != actions.RuleNone || rules["placeOrder"] != actions.RuleEvery || rules["noteOrder"] != actions.RuleAsk {
		t.Fatalf("rules %v", rules)
	}
	res, err := c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "o-42"}`, nil)
	if err != nil || res.Status != 200 {
		t.Fatalf("test getOrder: %+v %v", res, err)
	}
	// placeOrder needs confirming: with nobody to ask, it is not made
	if _, err := c.Actions().Test(t.Context(), a.ID, "placeOrder", `{"sku": "A1"}`, nil); !errors.Is(err, actions.ErrDeclined) {
		t.Fatalf("unconfirmed POST: %v", err)
	}
	for _, h := range api.seen() {
		if strings.HasPrefix(h, "POST") {
			t.Fatalf("an unconfirmed POST was sent: %v", api.seen())
		}
	}
	// "Always allow" is kept for noteOrder (false), never for placeOrder
	asked := 0
	always := func(context.Context, actions.Ask) (actions.Decision, error) { asked++; return actions.AllowAlways, nil }
	for range 2 {
		c.Actions().Test(t.Context(), a.ID, "noteOrder", `{"id": "1", "note": "hi"}`, always)
	}
	if asked != 1 {
		t.Fatalf("Always allow asked %d times, want once", asked)
	}
	asked = 0
	for range 2 {
		if _, err := c.Actions().Test(t.Context(), a.ID, "placeOrder", `{"sku": "A1"}`, always); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 2 {
		t.Fatalf("a consequential call was asked %d times for 2 calls", asked)
	}
	if err := c.Actions().Remove(a.ID, "shop"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := actions.NewSecrets(dir).Get(secretKey(a.ID, info.ID)); ok {
		t.Fatal("the key outlived its action")
	}
	if err := c.Actions().Remove(a.ID, "shop"); !errors.Is(err, ErrNoAction) {
		t.Fatalf("second remove: %v", err)
	}
	if _, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, api.URL), Auth: "bearer", AllowLocal: true}); !errors.Is(err, actions.ErrNoCredential) {
		t.Fatalf("bearer without a key: %v", err)
	}
}

// The loop, against the recorded model server, calls the action: the GET
// is made with the key; the consequential POST, with no terminal and no
// --yes, is not made and the model is told it was declined.
func TestActionsInTheLoop(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	a, _ := withAction(t, c, api.URL)
	tools, notes, err := c.Actions().Tools(a.ID, nil)
	if err != nil || len(notes) != 0 || len(tools) != 7 {
		t.Fatalf("tools %d %v %v", len(tools), notes, err)
	}
	rec := llmtest.Replay(t, "../llm/testdata", "action-tools")
	loop := &llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "qwen2.5:7b", Mode: llm.ModeTools, Tools: tools}
	tr := loop.Ask(t.Context(), "What does order o-42 total? Then order one A1.")
	if tr.Stopped != llm.StopAnswered {
		t.Fatalf("stopped %s: %s %s", tr.Stopped, tr.Error, tr.Note)
	}
	var uses []llm.ToolUse
	for _, tu := range tr.Turns {
		uses = append(uses, tu.Tools...)
	}
	if len(uses) != 2 || uses[0].Name != "getOrder" || !strings.Contains(uses[0].Fed, "HTTP 200") || !strings.Contains(uses[0].Fed, `"total": 12.5`) {
		t.Fatalf("uses %+v", uses)
	}
	if uses[1].Name != "placeOrder" || !strings.Contains(uses[1].Fed, "declined") || !strings.Contains(uses[1].Fed, "--yes") {
		t.Fatalf("the POST's use %+v", uses[1])
	}
	if got := api.seen(); len(got) != 1 || got[0] != "GET /api/orders/o-42" {
		t.Fatalf("the API saw %v, want the GET only", got)
	}
	bodies := rec.Bodies()
	if !strings.Contains(bodies[0], `"name":"placeOrder"`) || !strings.Contains(bodies[0], `"name":"python"`) {
		t.Fatal("the actions were not offered beside python")
	}
	if !strings.Contains(bodies[2], "declined") {
		t.Fatal("the model was not told the call was declined")
	}
}

// Air-gapped (the assistant's latest audit): a server outside loopback
// and the LAN is refused with the reason.
func TestActionsAirGappedAudit(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Outside"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, "http://192.0.2.7:8080"), Auth: "none"}); err != nil {
		t.Fatal(err)
	}
	vram, ram := int64(8<<30), int64(32<<30)
	if _, err := c.Audits().Run(t.Context(), audit.Request{AssistantIDs: []string{a.ID}, AirGapped: true, VRAMBytes: &vram, RAMBytes: &ram}); err != nil {
		t.Fatal(err)
	}
	if !c.Actions().AirGapped(a.ID) {
		t.Fatal("the audit's air-gapped setting was not read")
	}
	_, err = c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "1"}`, nil)
	if !errors.Is(err, actions.ErrRefused) || !strings.Contains(err.Error(), "air-gapped") {
		t.Fatalf("outside host while air-gapped: %v", err)
	}
}

// The key never leaves: not in the database (any bucket), the exports,
// the bundle, the list, the transcript, the conversation's Markdown and
// notebook, nor the log — only in the 0600 credentials file.
func TestActionsSecretNeverLeaves(t *testing.T) {
	dir := t.TempDir()
	var logBuf bytes.Buffer
	c := openCore(t, dir, Options{Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	api := newOrderAPI(t)
	a, _ := withAction(t, c, api.URL)
	if _, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, api.URL), Auth: "oauth", AllowLocal: true, ClientSecret: canaryKey + "-client",
		OAuth: &assistant.OAuthClient{ClientID: "cid", AuthURL: api.URL + "/auth", TokenURL: api.URL + "/token"}}); err != nil {
		t.Fatal(err)
	}
	places := map[string][]byte{}
	list, _ := c.Actions().List(a.ID)
	places["actions list"], _ = json.Marshal(list)
	for _, f := range []string{"modelfile", "openwebui"} {
		ex, err := c.Export(ExportRequest{ID: a.ID, Format: f, Options: assistant.ExportOptions{Model: "qwen2.5:7b"}})
		if err != nil {
			t.Fatal(err)
		}
		places["export "+f] = []byte(ex.Content)
	}
	bundle := filepath.Join(t.TempDir(), "shop.tar.gz")
	if _, err := c.Export(ExportRequest{ID: a.ID, Format: "bundle", Path: bundle}); err != nil {
		t.Fatal(err)
	}
	places["bundle"] = untar(t, bundle)
	tools, _, _ := c.Actions().Tools(a.ID, nil)
	rec := llmtest.Replay(t, "../llm/testdata", "action-tools")
	tr := (&llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "qwen2.5:7b", Mode: llm.ModeTools, Tools: tools}).Ask(t.Context(), "o-42?")
	places["transcript"], _ = json.Marshal(tr)
	places["model requests"] = []byte(strings.Join(rec.Bodies(), "\n"))
	conv := llm.NewConversation()
	conv.Add(tr)
	places["markdown"] = []byte(conv.Markdown())
	places["notebook"], _ = conv.Notebook()
	if err := llm.SaveConversation(c.Store(), conv); err != nil {
		t.Fatal(err)
	}
	c.Close()
	places["database"], _ = os.ReadFile(filepath.Join(dir, "rehome.db"))
	places["log"] = logBuf.Bytes()
	if len(places["database"]) == 0 {
		t.Fatal("no database file read")
	}
	for where, b := range places {
		if bytes.Contains(b, []byte(canaryKey)) {
			t.Errorf("the key is in the %s", where)
		}
	}
	// positive control: the credentials file holds both, owner only
	sec, _ := os.ReadFile(filepath.Join(dir, actions.SecretsFile))
	fi, _ := os.Stat(filepath.Join(dir, actions.SecretsFile))
	if !bytes.Contains(sec, []byte(canaryKey)) || !bytes.Contains(sec, []byte(canaryKey+"-client")) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v, holds the key: %v", fi.Mode().Perm(), bytes.Contains(sec, []byte(canaryKey)))
	}
}

func untar(t *testing.T, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(h.Name + "\n")
		io.Copy(&all, tr)
	}
	if all.Len() == 0 {
		t.Fatal("empty bundle")
	}
	return all.Bytes()
}

// Keys added at the same time (the window and its bridge share a Core)
// are all kept: one lock on the credentials file per Core.
func TestActionsConcurrentKeysKept(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Many"})
	if err != nil {
		t.Fatal(err)
	}
	schema := shopSchema(t, "http://127.0.0.1:9")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Actions().Add(a.ID, AddAction{Schema: schema, Auth: "bearer", Key: fmt.Sprintf("k-%d", i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, _ := c.Actions().List(a.ID)
	lost := 0
	for _, in := range list {
		if !in.HasKey {
			lost++
		}
	}
	if len(list) != 16 || lost != 0 {
		t.Fatalf("%d actions, %d without their key", len(list), lost)
	}
}

// An imported Assistants-API function tool (kept as an action whose
// schema is the function, as `assistants import` keeps it) is offered to
// the loop beside the actions, schema only; called, it says there is no
// server to call instead of calling anything.
func TestActionsImportedFunctionTool(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	fn := `{"type": "function", "function": {"name": "lookup_stock", "description": "Looks up stock.",
		"parameters": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}`
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Imported", Actions: []assistant.Action{{Schema: fn, Auth: "none"}}})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	ask := func(context.Context, actions.Ask) (actions.Decision, error) { asked++; return actions.AllowOnce, nil }
	for _, confirm := range []actions.Confirm{nil, ask} {
		tools, notes, err := c.Actions().Tools(a.ID, confirm)
		if err != nil || len(notes) != 0 || len(tools) != 1 || tools[0].Name != "lookup_stock" || tools[0].Description != "Looks up stock." {
			t.Fatalf("tools %+v %v %v", tools, notes, err)
		}
		// Nobody is asked to allow a call that cannot be made.
		out := tools[0].Call(t.Context(), llm.ToolInput{Arguments: `{"sku": "A1"}`})
		if out.Error == "" || !strings.Contains(out.Text, "no server") || asked != 0 {
			t.Fatalf("calling a function tool (asked %d): %+v", asked, out)
		}
	}
}
