package core

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
	"rehome/internal/testsupport/oauthtest"
)

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
	shop := oauthtest.New(t)
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Signed shop"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Actions().Add(a.ID, AddAction{Schema: shopSchema(t, shop.API.URL), Auth: "oauth", AllowLocal: true,
		OAuth: &assistant.OAuthClient{ClientID: "rehome-test", AuthURL: shop.Provider.URL + "/authorize", TokenURL: shop.Provider.URL + "/token", Scope: "orders"}})
	if err != nil || info.SignedIn {
		t.Fatalf("add: %+v %v", info, err)
	}
	// Not signed in: the call is not made unsigned.
	if _, err := c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "o-1"}`, nil); err == nil {
		t.Fatal("a call before the sign-in succeeded")
	}
	if err := c.Actions().SignIn(t.Context(), a.ID, info.Name, oauthtest.Browser); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Actions().List(a.ID); len(list) != 1 || !list[0].SignedIn {
		t.Fatalf("after the sign-in: %+v", list)
	}

	// The loop's GET, signed with the first access token.
	tools, _, _ := c.Actions().Tools(a.ID, nil)
	rec := llmtest.Replay(t, "../llm/testdata", "action-tools")
	tr := (&llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "qwen2.5:7b", Mode: llm.ModeTools, Tools: tools}).Ask(t.Context(), "What does o-42 total?")
	if u := uses(tr); len(u) < 1 || !strings.Contains(u[0].Fed, "HTTP 200") || shop.LastAuth() != "Bearer "+oauthtest.AccessCanary+"-1" {
		t.Fatalf("the signed call: %+v, sent %q", u, shop.LastAuth())
	}
	// Expired: refreshed before the call, the new token kept and used.
	if err := c.Actions().SetToken(a.ID, info.Name, &oauth2.Token{AccessToken: oauthtest.AccessCanary + "-1", RefreshToken: oauthtest.RefreshCanary, TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Actions().Test(t.Context(), a.ID, "getOrder", `{"id": "o-2"}`, nil); err != nil || res.Status != 200 {
		t.Fatalf("after expiry: %+v %v", res, err)
	}
	if shop.Refreshed() != 1 || shop.LastAuth() != "Bearer "+oauthtest.AccessCanary+"-2" {
		t.Fatalf("refreshed %d, sent %q", shop.Refreshed(), shop.LastAuth())
	}
	kept, _, _ := actions.NewSecrets(dir).Get(secretKey(a.ID, info.ID))
	if kept.Token == nil || kept.Token.AccessToken != oauthtest.AccessCanary+"-2" {
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
		for _, secret := range []string{oauthtest.AccessCanary, oauthtest.RefreshCanary} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("a token (%s) is in the %s", secret, where)
			}
		}
	}
	sec, _ := os.ReadFile(filepath.Join(dir, actions.SecretsFile))
	if !bytes.Contains(sec, []byte(oauthtest.AccessCanary+"-2")) || !bytes.Contains(sec, []byte(oauthtest.RefreshCanary)) {
		t.Fatal("the credentials file does not hold the tokens (the search above proves nothing)")
	}
}
