package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"rehome/app"
	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/core"
)

const appCanary = "sk-app-canary-5e0b33"

// confirmEvents answers each action:confirm with the next decision.
type confirmEvents struct {
	a    *app.App
	mu   sync.Mutex
	asks []actions.Ask
	next []actions.Decision
}

func (e *confirmEvents) Emit(event string, payload any) {
	c, ok := payload.(app.ActionConfirm)
	if event != "action:confirm" || !ok {
		return
	}
	e.mu.Lock()
	e.asks = append(e.asks, c.Ask)
	d := actions.Deny
	if len(e.next) > 0 {
		d, e.next = e.next[0], e.next[1:]
	}
	e.mu.Unlock()
	go e.a.AnswerAction(c.ID, d)
}

// The window's confirmation: the event names the operation, the host and
// the arguments; Allow makes the call, Deny does not; the bridge's
// answers never carry the key.
func TestActionConfirmAndBridge(t *testing.T) {
	h, srv, token := bridge(t)
	var mu sync.Mutex
	var posts int
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+appCanary {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if r.Method == "POST" {
			mu.Lock()
			posts++
			mu.Unlock()
			w.WriteHeader(201)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "o-1", "total": 1}`)
	}))
	defer api.Close()
	b, err := os.ReadFile("../../backend/actions/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	as, err := h.CreateAssistant(assistant.Assistant{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	ev := &confirmEvents{a: h.App, next: []actions.Decision{actions.Deny, actions.AllowOnce}}
	h.SetEmitter(ev)
	// through the bridge, as the browser adds it
	add, _ := json.Marshal([]any{as.ID, core.AddAction{Schema: strings.ReplaceAll(string(b), "SERVER", api.URL), Auth: "bearer", AllowLocal: true, Key: appCanary}})
	hdr := map[string]string{TokenHeader: token}
	code, body := do(t, "POST", srv.URL+"/api/call/AddAction", string(add), hdr)
	if code != 200 || !strings.Contains(body, `"has_key":true`) {
		t.Fatalf("AddAction: %d %s", code, body)
	}
	var bodies []string
	bodies = append(bodies, body)
	call := func(op, args string) (int, string) {
		in, _ := json.Marshal([]any{as.ID, op, args})
		code, body := do(t, "POST", srv.URL+"/api/call/TestAction", string(in), hdr)
		bodies = append(bodies, body)
		return code, body
	}
	_, body = call("placeOrder", `{"sku": "A1"}`)
	if !strings.Contains(body, "declined") || posts != 0 {
		t.Fatalf("denied: %s (posts %d)", body, posts)
	}
	_, body = call("placeOrder", `{"sku": "A1"}`)
	if !strings.Contains(body, `"status":201`) || posts != 1 {
		t.Fatalf("allowed: %s (posts %d)", body, posts)
	}
	ev.mu.Lock()
	asks := ev.asks
	ev.mu.Unlock()
	if len(asks) != 2 || asks[0].Operation != "placeOrder" || !strings.HasPrefix(asks[0].Host, "127.0.0.1:") || asks[0].Arguments != `{"sku": "A1"}` || asks[0].AlwaysOffered || asks[0].Assistant != "Shop" {
		t.Fatalf("asks %+v", asks)
	}
	// a GET needs no dialog
	if _, body = call("getOrder", `{"id": "o-1"}`); !strings.Contains(body, `"status":200`) || len(ev.asks) != 2 {
		t.Fatalf("GET: %s, asks %d", body, len(ev.asks))
	}
	lst, _ := json.Marshal([]any{as.ID})
	_, body = do(t, "POST", srv.URL+"/api/call/ListActions", string(lst), hdr)
	bodies = append(bodies, body)
	one, _ := json.Marshal([]any{as.ID})
	_, body = do(t, "POST", srv.URL+"/api/call/GetAssistant", string(one), hdr)
	bodies = append(bodies, body)
	for _, b := range bodies {
		if strings.Contains(b, appCanary) {
			t.Fatalf("a bridge response carries the key: %s", b)
		}
	}
	if err := h.AnswerAction("gone", actions.AllowOnce); err == nil {
		t.Fatal("an answer for no waiting call was taken")
	}
	if err := h.AnswerAction("x", "maybe"); err == nil {
		t.Fatal("a bad answer was taken")
	}
}
