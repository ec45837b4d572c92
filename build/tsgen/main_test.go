package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"rehome/app"
	"rehome/app/bridge"
)

// generation is one run of the generator, shared by the tests here.
type generation struct {
	src     []byte
	methods []Method
	root    string
	err     error
}

var generate = sync.OnceValue(func() (g generation) {
	// Load the package with the build tags this test binary was built
	// with, as `go test` did.
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		g.err = fmt.Errorf("no build information in the test binary")
		return g
	}
	var tags string
	for _, s := range bi.Settings {
		if s.Key == "-tags" {
			tags = s.Value
		}
	}
	if g.root, g.err = filepath.Abs("../.."); g.err != nil {
		return g
	}
	if _, err := os.Stat(filepath.Join(g.root, "go.mod")); err != nil {
		g.err = fmt.Errorf("repository root not found: %v", err)
		return g
	}
	g.src, g.methods, g.err = Generate(Config{Tags: tags, Dir: g.root})
	return g
})

// TestGeneratedIsCurrent regenerates the UI's TypeScript from the Go source
// and fails when the committed file differs: a renamed JSON field, a new
// method or a changed signature must reach the UI through `make gen`.
func TestGeneratedIsCurrent(t *testing.T) {
	g := generate()
	if g.err != nil {
		t.Fatal(g.err)
	}
	got := g.src
	path := filepath.Join(g.root, Output)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("run `make gen` (%v)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("run `make gen` (%s differs from the Go source: %s)", Output, firstDiff(want, got))
	}
}

// firstDiff names the first line where the committed file (old) and the
// generated one (new) part.
func firstDiff(old, new []byte) string {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(new), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var la, lb string
		if i < len(a) {
			la = a[i]
		}
		if i < len(b) {
			lb = b[i]
		}
		if la != lb {
			return fmt.Sprintf("line %d is %q, the Go source gives %q", i+1, strings.TrimSpace(la), strings.TrimSpace(lb))
		}
	}
	return "same lines, different bytes"
}

// TestBridgeServesEveryMethod checks that the generated functions and the
// bridge of `rehome serve` agree: every generated method is served (a call
// with malformed arguments is refused as such, never as an unknown
// method), and the generated list is exactly the methods the window binds
// (the methods of the App's services, which *app.App embeds, so its
// method set is theirs), each on the service app.Calls routes it to.
func TestBridgeServesEveryMethod(t *testing.T) {
	g := generate()
	if g.err != nil {
		t.Fatal(g.err)
	}
	var generated []string
	for _, m := range g.methods {
		generated = append(generated, m.Name)
	}

	var bound []string
	pt := reflect.TypeFor[*app.App]()
	for i := 0; i < pt.NumMethod(); i++ {
		bound = append(bound, pt.Method(i).Name)
	}
	slices.Sort(bound)
	if !slices.Equal(generated, bound) {
		t.Errorf("generated methods differ from the bound ones: run `make gen`\ngenerated: %v\nbound:     %v", generated, bound)
	}

	a := app.New(app.Config{DataDir: t.TempDir()})
	// Each generated method is on the service the door routes it to.
	calls := app.NewCalls(a.App)
	for _, m := range g.methods {
		if got := calls.Service(m.Name); got != m.Service || got == "" {
			t.Errorf("%s: generated on service %q, the door routes it to %q", m.Name, m.Service, got)
		}
	}
	const token, host = "0123456789abcdef0123456789abcdef", "127.0.0.1:1"
	srv := bridge.NewServer(a.App, bridge.ServerOptions{
		Assets: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><html><head></head></html>")}},
		Token:  token,
		Hosts:  []string{host},
	})
	post := func(method string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, "http://"+host+"/api/call/"+method, strings.NewReader("{not an array"))
		req.Header.Set(bridge.TokenHeader, token)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	// The probe must tell a missing method from a served one.
	if code, body := post("NoSuchMethod"); code != http.StatusNotFound {
		t.Fatalf("an unknown method: HTTP %d %s, want 404", code, body)
	}
	for _, m := range generated {
		if code, body := post(m); code != http.StatusBadRequest || !strings.Contains(body, "arguments must be a JSON array") {
			t.Errorf("%s: HTTP %d %s; want it served (400 for malformed arguments)", m, code, strings.TrimSpace(body))
		}
	}
}
