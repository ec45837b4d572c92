package oauthtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// The tokens' canaries, for searching where they went: the Nth access
// token issued is AccessCanary-N; every refresh token is RefreshCanary.
const (
	AccessCanary  = "at-canary-0c7e5d19"
	RefreshCanary = "rt-canary-b61f2e88"
)

// Shop is the provider (Provider.URL + /authorize, /token) and the API
// (API.URL + /api/orders/{id}, answering {"id", "total"}).
type Shop struct {
	Provider, API *httptest.Server

	mu        sync.Mutex
	challenge string
	issued    int
	access    string
	refreshed int
	seen      []string
}

// New starts a Shop and stops it when t ends.
func New(t testing.TB) *Shop {
	s := &Shop{}
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
	mux.HandleFunc("/token", s.token)
	s.Provider = httptest.NewServer(mux)
	s.API = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	t.Cleanup(s.Provider.Close)
	t.Cleanup(s.API.Close)
	return s
}

func (s *Shop) token(w http.ResponseWriter, r *http.Request) {
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
		if r.Form.Get("refresh_token") != RefreshCanary {
			http.Error(w, `{"error":"invalid_grant"}`, 400)
			return
		}
		s.refreshed++
	default:
		http.Error(w, `{"error":"unsupported_grant_type"}`, 400)
		return
	}
	s.issued++
	s.access = fmt.Sprintf("%s-%d", AccessCanary, s.issued)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": s.access, "token_type": "Bearer", "refresh_token": RefreshCanary, "expires_in": 3600})
}

// Refreshed is how many times a refresh token was traded.
func (s *Shop) Refreshed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshed
}

// LastAuth is the Authorization header of the API's last request.
func (s *Shop) LastAuth() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return ""
	}
	return s.seen[len(s.seen)-1]
}

// Browser is the user's browser: it opens u and follows the provider's
// redirect to rehome's loopback callback, which must answer 200.
func Browser(u string) error {
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
