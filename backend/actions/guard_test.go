package actions

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"rehome/internal/testsupport/dnstest"
)

const echoKey = "sk-echo-canary-5d1f0be2a7c94e83"

// echoAPI is a real API on a loopback address that answers every request
// with what it was sent: the method, the path and every request header
// (as httpbin's /anything does), and keeps what it saw. /away redirects
// to to (when set) with 307.
type echoAPI struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "host path | headers"
	to   string
}

func newEchoAPI(t *testing.T, addr string) *echoAPI {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("skipped: cannot listen on %s: %v", addr, err)
	}
	e := &echoAPI{}
	e.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h strings.Builder
		r.Header.Write(&h)
		e.mu.Lock()
		e.seen = append(e.seen, r.Host+" "+r.URL.Path+" | "+h.String())
		to := e.to
		e.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/away") && to != "" {
			w.Header().Set("Location", to)
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		fmt.Fprintf(w, `{"method": %q, "path": %q, "headers": %q}`, r.Method, r.URL.Path, h.String())
	}))
	e.Server.Listener.Close()
	e.Server.Listener = ln
	e.Start()
	t.Cleanup(e.Close)
	return e
}

func (e *echoAPI) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string{}, e.seen...)
}

func echoSchema(servers ...string) string {
	var sv strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&sv, "  - url: %s\n", s)
	}
	return `openapi: 3.1.0
info: {title: Echo, version: "1"}
servers:
` + sv.String() + `paths:
  /anything:
    get: {operationId: echo, summary: echo the request}
  /away:
    get: {operationId: away, summary: a redirect}
    post: {operationId: postAway, summary: a consequential redirect}
`
}

// A real API on 127.0.0.1 is refused without the user's allowance — at
// the dial, so it sees no request — and called with it.
func TestCallLocalNeedsAllowance(t *testing.T) {
	api := newEchoAPI(t, "127.0.0.1:0")
	s := mustParse(t, echoSchema(api.URL))
	_, err := (&Client{}).Call(t.Context(), s, "echo", `{}`)
	var le *LocalError
	if !errors.As(err, &le) || !errors.Is(err, ErrRefused) || !errors.Is(err, ErrLocal) || le.Reach != ReachLoopback {
		t.Fatalf("without the allowance: %v", err)
	}
	if !strings.Contains(err.Error(), "rehome actions allow-local") {
		t.Fatalf("the refusal does not say how to allow it: %v", err)
	}
	if n := len(api.requests()); n != 0 {
		t.Fatalf("the API was reached %d time(s) without the allowance", n)
	}
	res, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "echo", `{}`)
	if err != nil || res.Status != 200 || len(api.requests()) != 1 {
		t.Fatalf("with the allowance: %+v %v", res, err)
	}
}

// A name that resolves to loopback is checked on the address it resolves
// to, not on its spelling: a name a DNS server (a real one on 127.0.0.1,
// as a rebinding attacker's would be) answers with 127.0.0.1, and
// localhost, are refused without the allowance.
func TestCallLocalByName(t *testing.T) {
	api := newEchoAPI(t, "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(api.Listener.Addr().String())
	res := dnstest.New(t, map[string]string{"api.rebind.test.": "127.0.0.1", "meta.rebind.test.": "169.254.169.254"})
	for _, host := range []string{"api.rebind.test", "localhost", "[::ffff:127.0.0.1]", "meta.rebind.test"} {
		s := mustParse(t, echoSchema("http://"+host+":"+port))
		_, err := (&Client{Resolver: res}).Call(t.Context(), s, "echo", `{}`)
		if !errors.Is(err, ErrLocal) {
			t.Errorf("%s: %v, want refused as local", host, err)
		}
	}
	if n := len(api.requests()); n != 0 {
		t.Fatalf("the API was reached %d time(s) by name without the allowance", n)
	}
	s := mustParse(t, echoSchema("http://api.rebind.test:"+port))
	if r, err := (&Client{Resolver: res, AllowLocal: true}).Call(t.Context(), s, "echo", `{}`); err != nil || r.Status != 200 {
		t.Fatalf("by name with the allowance: %+v %v", r, err)
	}
}

// The metadata services (169.254.169.254, fd00:ec2::254) and link-local
// addresses are refused at the dial (no packet leaves): without the
// allowance, and on an air-gapped machine even with it.
func TestCallMetadataRefused(t *testing.T) {
	for _, srv := range []string{"http://169.254.169.254", "http://[fd00:ec2::254]", "http://169.254.7.1:8080", "http://100.64.0.9"} {
		s := mustParse(t, echoSchema(srv))
		if _, err := (&Client{}).Call(t.Context(), s, "echo", `{}`); !errors.Is(err, ErrLocal) {
			t.Errorf("%s without the allowance: %v", srv, err)
		}
		_, err := (&Client{AllowLocal: true, AirGapped: true}).Call(t.Context(), s, "echo", `{}`)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "air-gapped") {
			t.Errorf("%s air-gapped with the allowance: %v", srv, err)
		}
	}
}

func TestClassify(t *testing.T) {
	for addr, want := range map[string]Reach{
		"127.0.0.1": ReachLoopback, "127.9.9.9": ReachLoopback, "::1": ReachLoopback, "0.0.0.0": ReachLoopback, "::": ReachLoopback,
		"::ffff:127.0.0.1": ReachLoopback, "64:ff9b::7f00:1": ReachLoopback, "2002:7f00:1::": ReachLoopback,
		"10.1.2.3": ReachPrivate, "172.16.0.1": ReachPrivate, "192.168.1.1": ReachPrivate, "fd12::1": ReachPrivate,
		"169.254.1.1": ReachLinkLocal, "fe80::1": ReachLinkLocal,
		"169.254.169.254": ReachMetadata, "fd00:ec2::254": ReachMetadata, "::ffff:169.254.169.254": ReachMetadata, "100.100.100.200": ReachMetadata,
		"100.64.0.1": ReachCGNAT, "100.127.255.254": ReachCGNAT,
		"224.0.0.1": ReachReserved, "255.255.255.255": ReachReserved, "ff02::1": ReachReserved, "198.18.0.1": ReachReserved,
		"8.8.8.8": ReachPublic, "2606:4700::1111": ReachPublic, "100.128.0.1": ReachPublic,
	} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

// A key is sent only to the host it was given for: a redirect to the
// schema's second server (127.0.0.2) goes there without it, for every
// kind of key.
func TestCallKeyStaysOnItsHost(t *testing.T) {
	second := newEchoAPI(t, "127.0.0.2:0")
	first := newEchoAPI(t, "127.0.0.1:0")
	first.to = second.URL + "/anything"
	s := mustParse(t, echoSchema(first.URL, second.URL))
	for _, au := range []string{"bearer", "basic", "header:X-Api-Key"} {
		a, _ := ParseAuth(au)
		sec := NewSecrets(t.TempDir())
		sec.Update("a/k", func(x *Secret) { x.Key = echoKey })
		res, err := (&Client{AllowLocal: true, Signer: a.Signer(sec, "a/k")}).Call(t.Context(), s, "away", `{}`)
		if err != nil || res.Status != 200 {
			t.Fatalf("%s: %+v %v", au, res, err)
		}
	}
	if got := first.requests(); len(got) != 3 || !strings.Contains(got[0], echoKey) {
		t.Fatalf("the first server did not get the key: %q", got)
	}
	for _, r := range second.requests() {
		if strings.Contains(r, echoKey) {
			t.Fatalf("the second server (another host) got the key: %q", r)
		}
	}
	if n := len(second.requests()); n != 3 {
		t.Fatalf("the second server was asked %d times, want 3", n)
	}
}

// An API that echoes its request headers gets the key, but the result —
// body, content type, headers echoed in it — never holds it: for each kind
// of key, the OAuth token and the decoded Basic password too.
func TestCallEchoedKeyRedacted(t *testing.T) {
	api := newEchoAPI(t, "127.0.0.1:0")
	s := mustParse(t, echoSchema(api.URL))
	basic := "dXNlcjpzM2NyZXQtcGFzc3dvcmQ=" // user:s3cret-password
	for _, tc := range []struct{ auth, key, secret string }{
		{"bearer", echoKey, echoKey}, {"header:X-Api-Key", echoKey, echoKey}, {"basic", basic, "s3cret-password"},
	} {
		a, _ := ParseAuth(tc.auth)
		sec := NewSecrets(t.TempDir())
		sec.Update("a/k", func(x *Secret) { x.Key = tc.key })
		res, err := (&Client{AllowLocal: true, Signer: a.Signer(sec, "a/k")}).Call(t.Context(), s, "echo", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		last := api.requests()[len(api.requests())-1]
		if !strings.Contains(last, tc.key) {
			t.Fatalf("%s: the API did not get the key (the test proves nothing): %q", tc.auth, last)
		}
		fed := res.Fed()
		if strings.Contains(fed, tc.key) || strings.Contains(fed, tc.secret) || strings.Contains(fed, "user:") {
			t.Fatalf("%s: the key is in what the model reads:\n%s", tc.auth, fed)
		}
		if !strings.Contains(res.Body, Redacted) || !strings.Contains(res.Note, "cut them out") {
			t.Fatalf("%s: the cut is not said: %+v", tc.auth, res)
		}
	}
}

// A call the user confirmed is not redirected: a 307 to another path of
// the same host is the result, said in words, and the new path is never
// asked.
func TestCallConfirmedRedirectNotFollowed(t *testing.T) {
	api := newEchoAPI(t, "127.0.0.1:0")
	api.to = api.URL + "/admin/delete-everything"
	s := mustParse(t, echoSchema(api.URL))
	res, err := (&Client{AllowLocal: true, Confirmed: true}).Call(t.Context(), s, "postAway", `{}`)
	if err != nil || res.Status != http.StatusTemporaryRedirect {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(res.Fed(), "did not follow it") || !strings.Contains(res.Fed(), "/admin/delete-everything") {
		t.Fatalf("the unfollowed redirect is not said: %s", res.Fed())
	}
	for _, r := range api.requests() {
		if strings.Contains(r, "/admin/") {
			t.Fatalf("the redirect of a confirmed call was followed: %q", r)
		}
	}
	// Not confirmed (a GET without the flag): followed on the same host.
	res, err = (&Client{AllowLocal: true}).Call(t.Context(), s, "away", `{}`)
	if err != nil || res.Status != 200 || !strings.Contains(res.Body, "/admin/delete-everything") {
		t.Fatalf("an unconfirmed GET's redirect: %+v %v", res, err)
	}
}

// A redirect cannot take an allowed call somewhere it may not go: from an
// allowed loopback API to a metadata address named among the servers, the
// dial guard checks the redirect's address too (air-gapped here).
func TestCallRedirectCheckedAtTheDial(t *testing.T) {
	api := newEchoAPI(t, "127.0.0.1:0")
	api.to = "http://169.254.169.254/latest/meta-data/"
	s := mustParse(t, echoSchema(api.URL, "http://169.254.169.254"))
	_, err := (&Client{AllowLocal: true, AirGapped: true}).Call(t.Context(), s, "away", `{}`)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("the redirect to the metadata address was not refused: %v", err)
	}
}
