package link

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/system"

	"rehome/internal/testsupport/hostilepodman"
)

func shortTempDir(t *testing.T) string {
	d, err := os.MkdirTemp("/tmp", "hp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// A service that answers info one byte a second, for ever, is given up
// on after AnswerTime (on 1c9eba1 the call waited for as long as the
// caller's context, which doctor does not bound).
func TestPodmanAnswersAreBoundedInTime(t *testing.T) {
	old := AnswerTime
	AnswerTime = 2 * time.Second
	defer func() { AnswerTime = old }()
	srv, err := hostilepodman.Start(shortTempDir(t), hostilepodman.Trickle, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, err := NewBindings(t.Context(), srv.URI)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = system.Info(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "did not come within 2s") {
		t.Fatalf("info from a trickling service: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("info took %s against a 2s bound", d)
	}
}

// Every answer is capped, a byte past the cap refused and the cap itself
// read whole; errors have the smaller cap; a stream is not capped.
func TestPodmanAnswerCaps(t *testing.T) {
	size := map[string]int{"/v4/libpod/info": MaxAnswerBytes, "/v4/libpod/containers/json": MaxAnswerBytes + 1,
		"/v4/libpod/images/export": MaxAnswerBytes + 10, "/v4/libpod/containers/x/json": MaxErrorAnswerBytes + 1}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/x/json") {
			w.WriteHeader(500)
		}
		w.Write([]byte(strings.Repeat("a", size[r.URL.Path])))
	}))
	defer ts.Close()
	c := &http.Client{Transport: Bounded(&http.Transport{})}
	for path, n := range size {
		resp, err := c.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		over := path == "/v4/libpod/containers/json" || path == "/v4/libpod/containers/x/json"
		switch {
		case over && !errors.Is(err, ErrAnswerTooLarge):
			t.Errorf("%s (%d bytes): %v after %d bytes", path, n, err, len(got))
		case !over && (err != nil || len(got) != n):
			t.Errorf("%s (%d bytes): %v after %d bytes", path, n, err, len(got))
		}
	}
}

// A service that describes itself with fields of 1 MiB each, terminal
// escapes among them, and 100,000 cgroup controllers: what rehome keeps
// of it (the cache folder, the self-test, the window's host dialog) is
// 200 printable characters a field and 32 controllers. On 2e30bb1 every
// byte of it was kept and shown.
func TestPodmanDescriptionIsBounded(t *testing.T) {
	srv, err := hostilepodman.Start(shortTempDir(t), hostilepodman.Liar, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, err := newConnection(t.Context(), srv.URI)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	e := &Engine{opts: Options{CacheDir: cache}}
	for range 2 { // asked, then read back from the cache folder
		h, err := e.describe(t.Context(), &Connection{URI: srv.URI, ctx: ctx})
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range map[string]string{"version": h.PodmanVersion, "kernel": h.Kernel, "cgroup": h.CgroupVersion,
			"manager": h.CgroupManager, "runtime": h.DefaultRuntime, "storage": h.StorageDriver} {
			if len([]rune(f)) > maxHostField+1 || strings.ContainsAny(f, "\x1b\x07") || !strings.HasPrefix(f, "?[2J?]0;pwned?") {
				t.Fatalf("the service's %s is kept as %d bytes: %.80q", name, len(f), f)
			}
		}
		if len(h.Controllers) != maxHostControllers || strings.ContainsRune(h.Controllers[0], 0x1b) {
			t.Fatalf("%d controllers kept, the first %q", len(h.Controllers), h.Controllers[0])
		}
	}
	st, _ := os.Stat(e.statePath())
	if st == nil || st.Size() > 64<<10 {
		t.Fatalf("the cache folder's description: %v", st)
	}
}
