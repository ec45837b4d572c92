package actions

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
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
)

// Each API-key kind is sent as ChatGPT sends it; the key lives in a 0600
// file; a missing key is said, and nothing is sent.
func TestAPIKeyKinds(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	dir := t.TempDir()
	sec := NewSecrets(dir)
	cases := []struct {
		flag, want string
	}{
		{"basic", "Basic dXNlcjpwdw==|"},
		{"bearer", "Bearer sk-test-123|"},
		{"header:x-api-key", "|sk-test-123"},
	}
	for _, c := range cases {
		a, err := ParseAuth(c.flag)
		if err != nil {
			t.Fatal(err)
		}
		key := "asst/" + c.flag
		k := "sk-test-123"
		if a.Type == AuthBasic {
			k = "dXNlcjpwdw==" // user:pw, as the GPT editor takes it
		}
		if err := sec.Update(key, func(x *Secret) { x.Key = k }); err != nil {
			t.Fatal(err)
		}
		if _, err := (&Client{AllowLocal: true, Signer: a.Signer(sec, key)}).Call(t.Context(), s, "getOrder", `{"id": "1"}`); err != nil {
			t.Fatal(err)
		}
		_, auth := api.seen()
		if got := auth[len(auth)-1]; got != c.want {
			t.Errorf("%s: sent %q, want %q", c.flag, got, c.want)
		}
	}
	fi, err := os.Stat(sec.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	n, _ := api.seen()
	a, _ := ParseAuth("bearer")
	_, err = (&Client{AllowLocal: true, Signer: a.Signer(sec, "asst/none")}).Call(t.Context(), s, "getOrder", `{"id": "1"}`)
	if !errors.Is(err, ErrNoCredential) {
		t.Fatalf("no key: %v", err)
	}
	if m, _ := api.seen(); len(m) != len(n) {
		t.Fatal("a call without its key was sent")
	}
	// a file others can read is refused, not used
	os.Chmod(sec.Path(), 0o644)
	if _, _, err := sec.Get("asst/bearer"); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a world-readable secrets file was read: %v", err)
	}
	for _, bad := range []string{"apikey", "header:", "header:X Key"} {
		if _, err := ParseAuth(bad); err == nil {
			t.Errorf("ParseAuth(%q) accepted", bad)
		}
	}
}

// provider is an OAuth provider on 127.0.0.1: authorization code with
// PKCE (S256 checked at the token endpoint) and refresh tokens.
type provider struct {
	*httptest.Server
	mu        sync.Mutex
	challenge string
	issued    int
	refreshed int
	lastToken string
}

func newProvider(t *testing.T) *provider {
	p := &provider{}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") != "rehome-test" {
			http.Error(w, "want PKCE S256 and the client id", 400)
			return
		}
		p.mu.Lock()
		p.challenge = q.Get("code_challenge")
		p.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c0de&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		p.mu.Lock()
		defer p.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if r.Form.Get("code") != "c0de" || base64.RawURLEncoding.EncodeToString(sum[:]) != p.challenge {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-1" {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
			p.refreshed++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, 400)
			return
		}
		p.issued++
		p.lastToken = fmt.Sprintf("access-%d", p.issued)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": p.lastToken, "token_type": "Bearer", "refresh_token": "refresh-1", "expires_in": 3600})
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// OAuth: sign-in through the loopback redirect with PKCE, the call signed
// with the token, an expired token refreshed and the new one kept.
func TestOAuthSignInAndRefresh(t *testing.T) {
	prov := newProvider(t)
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	a := Auth{Type: AuthOAuth, ClientID: "rehome-test", AuthURL: prov.URL + "/authorize", TokenURL: prov.URL + "/token", Scope: "orders"}
	tok, err := a.SignIn(t.Context(), "", func(u string) error {
		// the user's browser: follows the provider's redirect to rehome
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("callback answered %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "access-1" || tok.RefreshToken != "refresh-1" {
		t.Fatalf("token %+v", tok)
	}
	sec := NewSecrets(t.TempDir())
	sec.Update("a/o", func(x *Secret) { x.Token = tok })
	if _, err := (&Client{AllowLocal: true, Signer: a.Signer(sec, "a/o")}).Call(t.Context(), s, "getOrder", `{"id": "1"}`); err != nil {
		t.Fatal(err)
	}
	_, auth := api.seen()
	if auth[len(auth)-1] != "Bearer access-1|" {
		t.Fatalf("sent %q", auth[len(auth)-1])
	}
	// expire it: the next call refreshes and keeps the new token
	sec.Update("a/o", func(x *Secret) { x.Token.Expiry = time.Now().Add(-time.Hour) })
	if _, err := (&Client{AllowLocal: true, Signer: a.Signer(sec, "a/o")}).Call(t.Context(), s, "getOrder", `{"id": "1"}`); err != nil {
		t.Fatal(err)
	}
	_, auth = api.seen()
	if auth[len(auth)-1] != "Bearer access-2|" || prov.refreshed != 1 {
		t.Fatalf("after expiry sent %q, refreshed %d", auth[len(auth)-1], prov.refreshed)
	}
	kept, _, _ := sec.Get("a/o")
	if kept.Token.AccessToken != "access-2" {
		t.Fatalf("the refreshed token was not kept: %q", kept.Token.AccessToken)
	}
	// a wrong verifier is refused by the provider: the flow really checks
	prov.mu.Lock()
	prov.challenge = "not-it"
	prov.mu.Unlock()
	bad := a
	bad.AuthURL = prov.URL + "/authorize-nowhere"
	ctx, cancel := contextTimeout(t, 500*time.Millisecond)
	defer cancel()
	if _, err := bad.SignIn(ctx, "", func(string) error { return nil }); err == nil {
		t.Fatal("a sign-in nobody answered succeeded")
	}
}

// TestRedTeamOAuthForgedStateFirst: a page or local process calls the
// loopback port with a forged state (and its own code) before the
// provider's redirect arrives. It is refused and no token is asked for
// its code; the sign-in was ended by it (any web page could cancel every
// sign-in by calling 127.0.0.1 ports), now it waits for the real answer
// and signs in. With only forged answers, it ends at its deadline saying
// they were refused.
func TestRedTeamOAuthForgedStateFirst(t *testing.T) {
	prov := newProvider(t)
	a := Auth{Type: AuthOAuth, ClientID: "rehome-test", AuthURL: prov.URL + "/authorize", TokenURL: prov.URL + "/token"}
	forge := func(u string) error {
		p, _ := url.Parse(u)
		for _, q := range []string{"?code=c0de&state=forged", "?code=c0de", "?error=access_denied&state=" + strings.Repeat("0", 32)} {
			resp, err := http.Get(p.Query().Get("redirect_uri") + q)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				return fmt.Errorf("a forged answer %s got %s", q, resp.Status)
			}
		}
		return nil
	}
	tok, err := a.SignIn(t.Context(), "", func(u string) error {
		if err := forge(u); err != nil {
			return err
		}
		resp, err := http.Get(u) // the user's browser, after the forgeries
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("callback answered %s", resp.Status)
		}
		return nil
	})
	if err != nil || tok == nil || tok.AccessToken != "access-1" || prov.issued != 1 {
		t.Fatalf("forged answers first: token %+v, %v, tokens issued %d", tok, err, prov.issued)
	}
	ctx, cancel := contextTimeout(t, 700*time.Millisecond)
	defer cancel()
	_, err = a.SignIn(ctx, "", forge)
	if err == nil || !strings.Contains(err.Error(), "3 answer(s) without the state") || prov.issued != 1 {
		t.Fatalf("forged answers only: %v, tokens issued %d", err, prov.issued)
	}
}

// Air-gapped, the OAuth refresh goes through the same dial guard: a token
// endpoint outside loopback and the LAN is refused, not dialled.
func TestOAuthRefreshAirGapped(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	a := Auth{Type: AuthOAuth, ClientID: "rehome-test", AuthURL: "http://192.0.2.9/authorize", TokenURL: "http://192.0.2.9/token"}
	sec := NewSecrets(t.TempDir())
	sec.Update("a/o", func(x *Secret) {
		x.Token = &oauth2.Token{AccessToken: "old", RefreshToken: "r", Expiry: time.Now().Add(-time.Hour)}
	})
	_, err := (&Client{AllowLocal: true, AirGapped: true, Signer: a.Signer(sec, "a/o")}).Call(t.Context(), s, "getOrder", `{"id": "1"}`)
	if err == nil || !strings.Contains(err.Error(), "air-gapped") {
		t.Fatalf("refresh to an outside host while air-gapped: %v", err)
	}
	if hits, _ := api.seen(); len(hits) != 0 {
		t.Fatalf("the call went out with an expired token: %v", hits)
	}
}

// TestRedTeamSecretsLockLink: a data folder copied from elsewhere whose
// action-secrets.json.lock is a link to a path of the user's: taking the
// lock created the file the link names (an empty file anywhere the user
// may write, such as an autostart entry). Now the lock is not taken
// through a link, and the error says what to do.
func TestRedTeamSecretsLockLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "autostart.desktop")
	sec := NewSecrets(dir)
	if err := os.Symlink(target, sec.Path()+".lock"); err != nil {
		t.Fatal(err)
	}
	err := sec.Update("a/o", func(x *Secret) { x.Key = "k" })
	if _, serr := os.Lstat(target); serr == nil {
		t.Errorf("the lock created the file its link names: %s", target)
	}
	if err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a linked lock file: %v", err)
	}
}
