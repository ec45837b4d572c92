package bridge

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"rehome/app"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// bridge starts the HTTP face of a fresh App on a loopback port and
// returns it with its token.
func bridge(t *testing.T) (*app.Host, *httptest.Server, string) {
	t.Helper()
	a := newTestApp(t)
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	token := "0123456789abcdef0123456789abcdef"
	assets := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><html><head><title>rehome</title></head><body></body></html>")}}
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	hosts, err := LoopbackHosts(srv.Listener.Addr())
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = NewServer(a.App, ServerOptions{Assets: assets, Token: token, Hosts: hosts})
	return a, srv, token
}

func do(t *testing.T, method, u, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestBridgeRefusesCrossOriginCalls replays what a page on another port
// of this machine can send: "simple" requests that carry the cookie,
// requests marked same-site or cross-site, foreign Origins. None may
// change anything.
func TestBridgeRefusesCrossOriginCalls(t *testing.T) {
	a, srv, token := bridge(t)
	cookie := TokenCookie + "=" + token
	raise := `[{"timeout":3600000000000,"pids":4096}]`
	attacks := []struct {
		name string
		hdr  map[string]string
		want string
	}{ // 403: from another origin; 401: without the right token
		{"cookie only (no-cors text/plain)", map[string]string{"Cookie": cookie, "Content-Type": "text/plain;charset=UTF-8", "Origin": "http://127.0.0.1:1"}, "from http://127.0.0.1:1"},
		{"cookie only, no Origin", map[string]string{"Cookie": cookie, "Content-Type": "text/plain"}, "X-Rehome-Token header"},
		{"token but same-site (another port)", map[string]string{TokenHeader: token, "Sec-Fetch-Site": "same-site"}, "Sec-Fetch-Site: same-site"},
		{"token but cross-site", map[string]string{TokenHeader: token, "Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site: cross-site"},
		{"token but foreign Origin", map[string]string{TokenHeader: token, "Origin": "http://127.0.0.1:1"}, "from http://127.0.0.1:1"},
		{"token but Origin null", map[string]string{TokenHeader: token, "Origin": "null"}, "from null"},
		{"wrong token", map[string]string{TokenHeader: "nope", "Sec-Fetch-Site": "same-origin"}, "wrong X-Rehome-Token"},
		{"read key on a call", map[string]string{"Cookie": cookie}, "X-Rehome-Token header"},
	}
	for _, at := range attacks {
		u := srv.URL + "/api/call/SetRunLimits"
		if strings.HasPrefix(at.name, "read key") {
			u += "?k=" + ReadKey(token)
		}
		code, body := do(t, "POST", u, raise, at.hdr)
		if (code != http.StatusForbidden && code != http.StatusUnauthorized) || !strings.Contains(body, at.want) {
			t.Errorf("%s: HTTP %d %q, want 401/403 saying %q", at.name, code, body, at.want)
		}
	}
	// Uploads too.
	code, body := do(t, "POST", srv.URL+"/api/upload", "a,b\n1,2\n", map[string]string{"Cookie": cookie, "X-File-Name": "x.csv"})
	if code != http.StatusUnauthorized {
		t.Errorf("upload with the cookie only: %d %s", code, body)
	}
	if _, err := os.Stat(filepath.Join(app.DataDir(a.App), app.UploadsDir)); !os.IsNotExist(err) {
		t.Errorf("a refused upload left %s: %v", app.UploadsDir, err)
	}
	l, err := a.RunLimits()
	if err != nil || l.Timeout == time.Hour || l.Pids == 4096 {
		t.Fatalf("a refused call changed the limits: %+v %v", l, err)
	}

	// rehome's own page: the header, same-origin (Origin may be present).
	code, body = do(t, "POST", srv.URL+"/api/call/SetRunLimits", raise, map[string]string{TokenHeader: token, "Sec-Fetch-Site": "same-origin", "Origin": srv.URL})
	if code != 200 || strings.Contains(body, `"error"`) {
		t.Fatalf("own page: %d %s", code, body)
	}
	if l, _ := a.RunLimits(); l.Pids != 4096 {
		t.Fatalf("own page's call not applied: %+v", l)
	}
	// A tool (curl, the CLI tests): no Origin, no Sec-Fetch-*.
	if code, body := do(t, "POST", srv.URL+"/api/call/Status", "[]", map[string]string{TokenHeader: token}); code != 200 {
		t.Fatalf("tool call: %d %s", code, body)
	}
}

func TestBridgeReadKeyAndPage(t *testing.T) {
	a, srv, token := bridge(t)
	cookie := TokenCookie + "=" + token
	out := filepath.Join(app.DataDir(a.App), app.RunsDir, "r1", "plot.png")
	os.MkdirAll(filepath.Dir(out), 0o700)
	os.WriteFile(out, []byte("\x89PNG fake"), 0o600)
	file := srv.URL + "/api/file?path=" + url.QueryEscape(out)

	if code, body := do(t, "GET", file, "", map[string]string{"Cookie": cookie}); code != http.StatusUnauthorized {
		t.Errorf("file with the cookie only: %d %s", code, body)
	}
	if code, _ := do(t, "GET", file+"&k=wrong", "", nil); code != http.StatusUnauthorized {
		t.Errorf("file with a wrong read key: %d", code)
	}
	if code, _ := do(t, "GET", file+"&k="+ReadKey(token), "", map[string]string{"Sec-Fetch-Site": "same-site"}); code != http.StatusForbidden {
		t.Errorf("file with the read key from another port: %d", code)
	}
	if code, body := do(t, "GET", file+"&k="+ReadKey(token), "", map[string]string{"Sec-Fetch-Site": "same-origin"}); code != 200 || body != "\x89PNG fake" {
		t.Errorf("file with the read key: %d %q", code, body)
	}
	if ReadKey(token) == token || strings.Contains(token, ReadKey(token)) {
		t.Fatal("the read key is the token")
	}

	// The page carries the token for its scripts, only with the cookie,
	// never cached, never framed.
	if code, body := do(t, "GET", srv.URL+"/", "", nil); code != http.StatusUnauthorized || strings.Contains(body, token) {
		t.Fatalf("page without the cookie: %d %q", code, body)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Header.Set("Cookie", cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), `<meta name="rehome-token" content="`+token+`">`) || !strings.Contains(string(b), `<meta name="rehome-read-key" content="`+ReadKey(token)+`">`) {
		t.Fatalf("page has no token: %s", b)
	}
	if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("page headers: %v", res.Header)
	}
}

func TestServeHosts(t *testing.T) {
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP("192.168.1.20"), net.ParseIP("fe80::1"), net.ParseIP("fd00::2")}
	hosts, urls, err := ServeHosts(&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, ips, "box")
	if err != nil {
		t.Fatal(err)
	}
	wantURLs := []string{"http://127.0.0.1:8080", "http://192.168.1.20:8080", "http://[fd00::2]:8080", "http://box:8080"}
	if strings.Join(urls, " ") != strings.Join(wantURLs, " ") {
		t.Fatalf("urls %q, want %q", urls, wantURLs)
	}
	for _, h := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "192.168.1.20:8080", "[fd00::2]:8080", "box:8080"} {
		if !slices.Contains(hosts, h) {
			t.Errorf("%s not accepted: %q", h, hosts)
		}
	}
	for _, h := range []string{"[::]:8080", "0.0.0.0:8080", "[fe80::1]:8080", "evil.example:8080"} {
		if slices.Contains(hosts, h) {
			t.Errorf("%s accepted", h)
		}
	}
	hosts, urls, _ = ServeHosts(&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 9}, ips, "box")
	if len(urls) != 1 || urls[0] != "http://127.0.0.1:9" || slices.Contains(hosts, "192.168.1.20:9") || slices.Contains(hosts, "box:9") {
		t.Fatalf("loopback: %q %q", hosts, urls)
	}
}
