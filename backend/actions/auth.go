package actions

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
)

// Auth is how an action signs its calls: what is kept with the assistant.
// The key itself is never here: it is in Secrets.
type Auth struct {
	// Type: none, basic, bearer, header (a custom header, Header) or
	// oauth.
	Type   string `json:"type"`
	Header string `json:"header,omitempty"`
	// The OAuth client (authorization code with PKCE).
	ClientID string `json:"client_id,omitempty"`
	AuthURL  string `json:"auth_url,omitempty"`
	TokenURL string `json:"token_url,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// TokenExchange is how the client authenticates at the token URL:
	// "basic_auth_header" (HTTP Basic) or "default_post" (in the form),
	// as the GPT editor's OAuth form says; "" lets the library find out.
	TokenExchange string `json:"token_exchange,omitempty"`
}

// The auth types.
const (
	AuthNone   = "none"
	AuthBasic  = "basic"
	AuthBearer = "bearer"
	AuthHeader = "header"
	AuthOAuth  = "oauth"
)

// ParseAuth reads the CLI's --auth: none, basic, bearer, header:NAME or
// oauth.
func ParseAuth(s string) (Auth, error) {
	switch {
	case s == "" || s == AuthNone:
		return Auth{Type: AuthNone}, nil
	case s == AuthBasic || s == AuthBearer || s == AuthOAuth:
		return Auth{Type: s}, nil
	case strings.HasPrefix(s, "header:") && len(s) > len("header:"):
		name := strings.TrimPrefix(s, "header:")
		if strings.ContainsAny(name, " :\r\n") {
			return Auth{}, fmt.Errorf("the header name %q has a space or a colon: write it as header:X-Api-Key", name)
		}
		return Auth{Type: AuthHeader, Header: http.CanonicalHeaderKey(name)}, nil
	}
	return Auth{}, fmt.Errorf("auth %q: use none, basic, bearer, header:NAME or oauth", s)
}

// NeedsKey says the auth needs an API key.
func (a Auth) NeedsKey() bool {
	return a.Type == AuthBasic || a.Type == AuthBearer || a.Type == AuthHeader
}

// Check says what is missing from the auth's settings.
func (a Auth) Check() error {
	if a.Type == AuthOAuth && (a.ClientID == "" || a.AuthURL == "" || a.TokenURL == "") {
		return errors.New("OAuth needs the client id, the authorization URL and the token URL (as the GPT editor's OAuth form has them)")
	}
	return nil
}

// Signer signs calls with the credentials stored under key in sec. An
// oauth token refreshed on the way is written back.
func (a Auth) Signer(sec *Secrets, key string) Signer {
	return &signer{a: a, sec: sec, key: key}
}

type signer struct {
	a   Auth
	sec *Secrets
	key string
}

func (s *signer) Sign(ctx context.Context, r *http.Request) error {
	if s.a.Type == "" || s.a.Type == AuthNone {
		return nil
	}
	v, ok, err := s.sec.Get(s.key)
	if err != nil {
		return err
	}
	switch s.a.Type {
	case AuthBasic, AuthBearer, AuthHeader:
		if !ok || v.Key == "" {
			return fmt.Errorf("%w: this action is waiting for its API key (%s): give it with `rehome actions key ASSISTANT ACTION --key-stdin`, or in the window's Actions panel", ErrNoCredential, s.a.Type)
		}
		switch s.a.Type {
		case AuthBasic:
			r.Header.Set("Authorization", "Basic "+v.Key)
		case AuthBearer:
			r.Header.Set("Authorization", "Bearer "+v.Key)
		default:
			r.Header.Set(s.a.Header, v.Key)
		}
		return nil
	case AuthOAuth:
		if s.a.ClientID == "" {
			return fmt.Errorf("%w: this action is waiting for its OAuth client: ChatGPT keeps the client id and secret the GPT's author registered with %s; register one for rehome there (redirect http://127.0.0.1/callback) and give it with `rehome actions key ASSISTANT ACTION --client-id ID --client-secret-stdin`, then sign in", ErrNoCredential, hostOf(s.a.AuthURL))
		}
		if !ok || v.Token == nil {
			return fmt.Errorf("%w: this action signs in with OAuth and nobody has signed in yet: run `rehome actions signin ASSISTANT ACTION`", ErrNoCredential)
		}
		tok, err := s.a.config(v.ClientSecret, "").TokenSource(ctx, v.Token).Token()
		if err != nil {
			return fmt.Errorf("%w: the sign-in expired and could not be renewed (%v): sign in again", ErrNoCredential, err)
		}
		if tok.AccessToken != v.Token.AccessToken {
			if err := s.sec.Update(s.key, func(x *Secret) { x.Token = tok }); err != nil {
				return err
			}
		}
		tok.SetAuthHeader(r)
		return nil
	}
	return fmt.Errorf("auth %q: use none, basic, bearer, header or oauth", s.a.Type)
}

func (a Auth) config(secret, redirect string) *oauth2.Config {
	c := &oauth2.Config{ClientID: a.ClientID, ClientSecret: secret, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: a.AuthURL, TokenURL: a.TokenURL, AuthStyle: a.authStyle()}}
	if a.Scope != "" {
		c.Scopes = strings.Fields(a.Scope)
	}
	return c
}

// authStyle is the token exchange method the GPT editor's form names.
func (a Auth) authStyle() oauth2.AuthStyle {
	switch a.TokenExchange {
	case "basic_auth_header":
		return oauth2.AuthStyleInHeader
	case "default_post":
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleAutoDetect
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "the provider"
}

// SignIn runs the OAuth authorization code flow with PKCE through a
// loopback redirect (http://127.0.0.1:PORT/callback, RFC 8252): open is
// given the address to show the user (a browser, or a line to click),
// and the token the provider returns is the result. It waits until the
// provider calls back, ctx ends, or 5 minutes pass.
func (a Auth) SignIn(ctx context.Context, clientSecret string, open func(url string) error) (*oauth2.Token, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1 for the sign-in's answer: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	conf := a.config(clientSecret, redirect)
	verifier := oauth2.GenerateVerifier()
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	state := hex.EncodeToString(b)
	type answer struct {
		code string
		err  error
	}
	got := make(chan answer, 1)
	var forged atomic.Int64
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			// Not the provider's answer to this sign-in: any page or
			// local process can call the loopback port. It is refused
			// and the sign-in waits on for the real one (ending it here
			// would let anyone cancel every sign-in).
			forged.Add(1)
			http.Error(w, "this is not the answer to rehome's sign-in (its state is not the one rehome sent)", http.StatusBadRequest)
			return
		}
		var ans answer
		switch {
		case q.Get("error") != "":
			ans.err = fmt.Errorf("the provider refused the sign-in: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			ans.err = errors.New("the provider's answer had no code")
		default:
			ans.code = q.Get("code")
		}
		if ans.err != nil {
			http.Error(w, ans.err.Error(), http.StatusBadRequest)
		} else {
			fmt.Fprintln(w, "Signed in. You can close this tab and go back to rehome.")
		}
		select {
		case got <- ans:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	if err := open(conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	select {
	case <-ctx.Done():
		if n := forged.Load(); n > 0 {
			return nil, fmt.Errorf("the sign-in did not finish: %w (%d answer(s) without the state rehome sent were refused: sign in again from rehome, in the browser it opens)", ctx.Err(), n)
		}
		return nil, fmt.Errorf("the sign-in did not finish: %w", ctx.Err())
	case ans := <-got:
		if ans.err != nil {
			return nil, ans.err
		}
		tok, err := conf.Exchange(ctx, ans.code, oauth2.VerifierOption(verifier))
		if err != nil {
			return nil, fmt.Errorf("the provider did not give a token for the sign-in's code: %w", err)
		}
		return tok, nil
	}
}
