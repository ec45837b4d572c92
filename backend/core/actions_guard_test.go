package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// echoOrders is a real API on 127.0.0.1 that answers an order with every
// request header it was sent (as a debug endpoint or httpbin would): the
// key included.
func echoOrders(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h bytes.Buffer
		r.Header.Write(&h)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+h.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "total": 12.5, "debug": {"headers": %q}}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"), h.String())
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, seen...) }
}

// An API that echoes its request headers puts the key into its answer:
// the model's tool result, the kept conversation (rehome.db), its
// Markdown and the model server's received bytes never hold it.
func TestActionsEchoedKeyNeverKept(t *testing.T) {
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	api, seen := echoOrders(t)
	a, _ := withAction(t, c, api.URL)
	tools, _, err := c.Actions().Tools(a.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := llmtest.Replay(t, "../llm/testdata", "action-tools")
	tr := (&llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "qwen2.5:7b", Mode: llm.ModeTools, Tools: tools}).Ask(t.Context(), "What does order o-42 total?")
	got := seen()
	if len(got) == 0 || !strings.Contains(got[0], canaryKey) {
		t.Fatalf("the API did not get the key (the test proves nothing): %q", got)
	}
	var fed string
	for _, tu := range tr.Turns {
		for _, u := range tu.Tools {
			fed += u.Fed
		}
	}
	if !strings.Contains(fed, actions.Redacted) {
		t.Fatalf("the echoed key was not cut out of the tool result: %s", fed)
	}
	conv := llm.NewConversation()
	conv.Add(tr)
	if err := llm.SaveConversation(c.Store(), conv); err != nil {
		t.Fatal(err)
	}
	places := map[string][]byte{"model server's received bytes": []byte(strings.Join(rec.Bodies(), "\n")), "markdown": []byte(conv.Markdown())}
	places["transcript"], _ = json.Marshal(tr)
	places["notebook"], _ = conv.Notebook()
	c.Close()
	places["database"], _ = os.ReadFile(filepath.Join(dir, "rehome.db"))
	for where, b := range places {
		if bytes.Contains(b, []byte(canaryKey)) {
			t.Errorf("the echoed key is in the %s", where)
		}
	}
}

// An imported assistant's actions never carry the allowance to call local
// addresses: a bundle that says allow_local loses it (and the import says
// so), a JSON import naming a server on 127.0.0.1 says its calls are
// refused, the model's call to the real API on 127.0.0.1 is refused and
// the API never asked; the user's own allow-local (by the assistant's
// name) lets it through; a page's whole record cannot set it either.
func TestActionsImportNeverAllowsLocal(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	own, err := c.Assistants().Create(assistant.Assistant{Name: "Own shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Actions().Add(own.ID, AddAction{Schema: shopSchema(t, api.URL), Auth: "none", AllowLocal: true}); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "shop.tar.gz")
	if _, err := c.Export(ExportRequest{ID: own.ID, Format: "bundle", Path: bundle}); err != nil {
		t.Fatal(err)
	}
	imp, err := c.Assistants().ImportBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(imp.Warnings, "\n"), "never carries that allowance") {
		t.Fatalf("the import does not say the allowance was dropped: %q", imp.Warnings)
	}
	list, err := c.Actions().List(imp.Assistant.ID)
	if err != nil || len(list) != 1 || list[0].AllowLocal || list[0].Local == "" {
		t.Fatalf("the imported action: %+v %v", list, err)
	}
	if _, err := c.Actions().Test(t.Context(), imp.Assistant.ID, "getOrder", `{"id": "o-1"}`, nil); !errors.Is(err, actions.ErrLocal) {
		t.Fatalf("the imported action's call to 127.0.0.1: %v", err)
	}

	gpt := map[string]any{"name": "Imported shop", "actions": []any{map[string]any{"schema": shopSchema(t, api.URL), "auth": "none"}}}
	data, _ := json.Marshal(gpt)
	rep, err := c.Assistants().ImportJSON(data, assistant.ImportOptions{})
	if err != nil || rep.Imported != 1 {
		t.Fatalf("import %+v %v", rep, err)
	}
	w := strings.Join(rep.Items[0].Warnings, "\n")
	if !strings.Contains(w, "127.0.0.1") || !strings.Contains(w, "rehome actions allow-local") {
		t.Fatalf("the import does not say its local server is refused: %q", w)
	}
	id := rep.Items[0].Assistant.ID
	tools, _, err := c.Actions().Tools(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var get llm.LoopTool
	for _, tl := range tools {
		if tl.Name == "getOrder" {
			get = tl
		}
	}
	out := get.Call(t.Context(), llm.ToolInput{Arguments: `{"id": "o-2"}`})
	if !strings.Contains(out.Text, "not called") || !strings.Contains(out.Text, "not allowed to reach local addresses") {
		t.Fatalf("the model was not told the call was refused: %+v", out)
	}
	if n := len(api.seen()); n != 0 {
		t.Fatalf("the imported actions reached the API on 127.0.0.1 %d time(s): %v", n, api.seen())
	}

	// A page sending the whole record with allow_local set changes nothing.
	stored, _ := c.Assistants().Get(id)
	stored.Actions[0].AllowLocal = true
	if _, err := c.Assistants().Update(stored); err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Assistants().Get(id); again.Actions[0].AllowLocal {
		t.Fatal("a whole record sent by a face set the allowance")
	}
	stored.Name = "A copy"
	if cp, err := c.Assistants().Create(stored); err != nil || cp.Actions[0].AllowLocal {
		t.Fatalf("a record created with allow_local kept it: %v", err)
	}

	// The user's own allowance, by the assistant's name: the call is made
	// (401 without a key: the API answered).
	info, err := c.Actions().SetAllowLocal("imported SHOP", "action-1", true)
	if err != nil || !info.AllowLocal {
		t.Fatalf("allow-local: %+v %v", info, err)
	}
	out = get.Call(t.Context(), llm.ToolInput{Arguments: `{"id": "o-2"}`})
	if !strings.Contains(out.Text, "HTTP 401") || len(api.seen()) != 1 {
		t.Fatalf("after allow-local: %+v, API saw %v", out, api.seen())
	}
}

// Every actions method takes the assistant's name as knowledge and ask
// do (one resolver in core); two assistants of one name ask for the id.
func TestActionsTakeAssistantNames(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	api := newOrderAPI(t)
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Order Desk"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Actions().Add("order desk", AddAction{Schema: shopSchema(t, api.URL), Auth: "bearer", Key: canaryKey, AllowLocal: true}); err != nil {
		t.Fatalf("add by name: %v", err)
	}
	if list, err := c.Actions().List(" Order Desk "); err != nil || len(list) != 1 {
		t.Fatalf("list by name: %v %v", list, err)
	}
	if res, err := c.Actions().Test(t.Context(), "ORDER DESK", "getOrder", `{"id": "o-1"}`, nil); err != nil || res.Status != 200 {
		t.Fatalf("test by name: %+v %v", res, err)
	}
	if _, err := c.Actions().SetAllowLocal("Order Desk", "shop", false); err != nil {
		t.Fatal(err)
	}
	if err := c.Actions().Remove("Order Desk", "shop"); err != nil {
		t.Fatalf("rm by name: %v", err)
	}
	if list, _ := c.Actions().List(a.ID); len(list) != 0 {
		t.Fatalf("still there: %v", list)
	}
	c.Assistants().Create(assistant.Assistant{Name: "order desk"})
	if _, err := c.Actions().List("Order Desk"); err == nil || !strings.Contains(err.Error(), "give the id") {
		t.Fatalf("two of one name: %v", err)
	}
	if _, err := c.Actions().List("Nobody"); err == nil || !strings.Contains(err.Error(), `no assistant has the id or name "Nobody"`) {
		t.Fatalf("unknown: %v", err)
	}
}
