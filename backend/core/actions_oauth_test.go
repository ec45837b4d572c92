package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// oauthShop is a real OAuth provider and the API it guards, on 127.0.0.1:
// the provider checks the PKCE verifier against the challenge and issues
// access and refresh tokens; the API answers only the last access token.
type oauthShop struct {
	provider, api *httptest.Server
	mu            sync.Mutex
	challenge     string
	issued        int
	access        string
	refreshed     int
	seen          []string // the API's Authorization headers
}

// The tokens' canaries: each access token is accessCanary-N.
const (
	accessCanary  = "at-canary-0c7e5d19"
	refreshCanary = "rt-canary-b61f2e88"
)

func newOAuthShop(t *testing.T) *oauthShop {
	s := &oauthShop{}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
			http.Error(w, "PKCE S256 and the code flow only", 400)
			return
		}
		s.mu.Lock()
		s.challenge = q.Get("code_challenge")
		s.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c0de&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if r.Form.Get("code") != "c0de" || base64.RawURLEncoding.EncodeToString(sum[:]) != s.challenge {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != refreshCanary {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
			s.refreshed++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, 400)
			return
		}
		s.issued++
		s.access = fmt.Sprintf("%s-%d", accessCanary, s.issued)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": s.access, "token_type": "Bearer", "refresh_token": refreshCanary, "expires_in": 3600})
	})
	s.provider = httptest.NewServer(mux)
	s.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Header.Get("Authorization"))
		ok := s.access != "" && r.Header.Get("Authorization") == "Bearer "+s.access
		s.mu.Unlock()
		if !ok {
			http.Error(w, `{"error": "sign in"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "total": 12.5}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"))
	}))
	t.Cleanup(s.provider.Close)
	t.Cleanup(s.api.Close)
	return s
}

// OAuth through core.Actions, as both faces use it: the sign-in (PKCE
// through the loopback redirect) keeps the tokens; the loop's call is
// signed with the access token; an expired token is refreshed before
// the call and the new one kept; and neither token is anywhere but the
// owner-only credentials file — not the database, the list, the
// exports, the bundle, the transcript, the model's requests, the
// Markdown, the notebook or the log.
func TestActionsOAuthThroughCore(t *testing.T) {
	dir := t.TempDir()
	var logBuf bytes.Buffer
	c := openCore(t, dir, Options{Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	shop := newOAuthShop(t)
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Signed shop"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, shop.api.URL), Auth: "oauth",
		OAuth: &assistant.OAuthClient{ClientID: "rehome-test", AuthURL: shop.provider.URL + "/authorize", TokenURL: shop.provider.URL + "/token", Scope: "orders"}})
	if err != nil || info.SignedIn {
		t.Fatalf("add: %+v %v", info, err)
	}
	// Not signed in: the call is not made unsigned.
	if _, err := c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "o-1"}`, nil); err == nil {
		t.Fatal("a call before the sign-in succeeded")
	}
	// The user's browser follows the provider's redirect to rehome's port.
	browser := func(u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("the callback answered %s", resp.Status)
		}
		return nil
	}
	if err := c.Actions().SignIn(t.Context(), a.ID, info.Name, browser); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Actions().List(a.ID); len(list) != 1 || !list[0].SignedIn {
		t.Fatalf("after the sign-in: %+v", list)
	}

	// The loop's GET, signed with the first access token.
	tools, _, _ := c.Actions().Tools(a.ID, nil)
	rec := llmtest.Replay(t, "../llm/testdata", "action-tools")
	tr := (&llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "qwen2.5:7b", Mode: llm.ModeTools, Tools: tools}).Ask(t.Context(), "What does o-42 total?")
	if u := uses(tr); len(u) < 1 || !strings.Contains(u[0].Fed, "HTTP 200") || shop.seen[len(shop.seen)-1] != "Bearer "+accessCanary+"-1" {
		t.Fatalf("the signed call: %+v, sent %v", u, shop.seen)
	}
	// Expired: refreshed before the call, the new token kept and used.
	if err := c.Actions().SetToken(a.ID, info.Name, &oauth2.Token{AccessToken: accessCanary + "-1", RefreshToken: refreshCanary, TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "o-2"}`, nil); err != nil || res.Status != 200 {
		t.Fatalf("after expiry: %+v %v", res, err)
	}
	if shop.refreshed != 1 || shop.seen[len(shop.seen)-1] != "Bearer "+accessCanary+"-2" {
		t.Fatalf("refreshed %d, sent %q", shop.refreshed, shop.seen[len(shop.seen)-1])
	}
	kept, _, _ := actions.NewSecrets(dir).Get(secretKey(a.ID, info.ID))
	if kept.Token == nil || kept.Token.AccessToken != accessCanary+"-2" {
		t.Fatalf("the refreshed token was not kept: %+v", kept.Token)
	}

	// Nowhere else.
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
	for where, b := range places {
		for _, secret := range []string{accessCanary, refreshCanary} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("a token (%s) is in the %s", secret, where)
			}
		}
	}
	sec, _ := os.ReadFile(filepath.Join(dir, actions.SecretsFile))
	if !bytes.Contains(sec, []byte(accessCanary+"-2")) || !bytes.Contains(sec, []byte(refreshCanary)) {
		t.Fatal("the credentials file does not hold the tokens (the search above proves nothing)")
	}
}
