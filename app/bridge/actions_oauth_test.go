package bridge

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"rehome/app"
	"rehome/backend/assistant"
	"rehome/backend/core"
	"rehome/internal/testsupport/oauthtest"
)

// signInEvents opens each action:signin page as the user's browser would.
type signInEvents struct {
	mu   sync.Mutex
	seen []app.ActionSignIn
	errs []error
}

func (e *signInEvents) Emit(event string, payload any) {
	s, ok := payload.(app.ActionSignIn)
	if event != "action:signin" || !ok {
		return
	}
	e.mu.Lock()
	e.seen = append(e.seen, s)
	e.mu.Unlock()
	go func() {
		if err := oauthtest.Browser(s.URL); err != nil {
			e.mu.Lock()
			e.errs = append(e.errs, err)
			e.mu.Unlock()
		}
	}()
}

// The window's Sign in button, through the bridge: SignInAction sends
// the provider's page as action:signin, waits for the user to come back
// through rehome's loopback port (PKCE checked by the real provider),
// keeps the tokens; the call is then signed, and no bridge answer nor
// event carries a token.
func TestActionSignInBridge(t *testing.T) {
	h, srv, token := bridge(t)
	shop := oauthtest.New(t)
	b, err := os.ReadFile("../../backend/actions/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	as, err := h.CreateAssistant(assistant.Assistant{Name: "Signed"})
	if err != nil {
		t.Fatal(err)
	}
	ev := &signInEvents{}
	h.SetEmitter(ev)
	hdr := map[string]string{TokenHeader: token}
	var bodies []string
	post := func(method string, args ...any) (int, string) {
		in, _ := json.Marshal(args)
		code, body := do(t, "POST", srv.URL+"/api/call/"+method, string(in), hdr)
		bodies = append(bodies, body)
		return code, body
	}
	if code, body := post("AddAction", as.ID, core.AddAction{Schema: strings.ReplaceAll(string(b), "SERVER", shop.API.URL), Auth: "oauth", AllowLocal: true,
		OAuth: &assistant.OAuthClient{ClientID: "rehome-test", AuthURL: shop.Provider.URL + "/authorize", TokenURL: shop.Provider.URL + "/token"}}); code != 200 || !strings.Contains(body, `"signed_in":false`) {
		t.Fatalf("AddAction: %d %s", code, body)
	}
	if code, body := post("SignInAction", as.ID, "shop"); code != 200 {
		t.Fatalf("SignInAction: %d %s", code, body)
	}
	ev.mu.Lock()
	seen, errs := ev.seen, ev.errs
	ev.mu.Unlock()
	if len(seen) != 1 || seen[0].Action != "shop" || !strings.HasPrefix(seen[0].URL, shop.Provider.URL+"/authorize?") || len(errs) != 0 {
		t.Fatalf("events %+v, browser %v", seen, errs)
	}
	if _, body := post("ListActions", as.ID); !strings.Contains(body, `"signed_in":true`) {
		t.Fatalf("after the sign-in: %s", body)
	}
	if _, body := post("TestAction", as.ID, "getOrder", `{"id": "o-1"}`); !strings.Contains(body, `"status":200`) || shop.LastAuth() != "Bearer "+oauthtest.AccessCanary+"-1" {
		t.Fatalf("the signed call: %s, sent %q", body, shop.LastAuth())
	}
	post("GetAssistant", as.ID)
	evs, _ := json.Marshal(seen)
	for _, b := range append(bodies, string(evs)) {
		if strings.Contains(b, oauthtest.AccessCanary) || strings.Contains(b, oauthtest.RefreshCanary) {
			t.Fatalf("a bridge answer or event carries a token: %s", b)
		}
	}
	// No such action: said, nothing run.
	if _, body := post("SignInAction", as.ID, "nope"); !strings.Contains(body, `"error":"no such action \"nope\"`) {
		t.Fatalf("an unknown action's sign-in: %s", body)
	}
}
