package link

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/system"

	"rehome/internal/testsupport/hostilepodman"
)

// A service that answers info one byte a second, for ever, is given up
// on after AnswerTime (on 1c9eba1 the call waited for as long as the
// caller's context, which doctor does not bound).
func TestPodmanAnswersAreBoundedInTime(t *testing.T) {
	old := AnswerTime
	AnswerTime = 2 * time.Second
	defer func() { AnswerTime = old }()
	srv, err := hostilepodman.Start(hostilepodman.Dir(t), hostilepodman.Trickle, 0)
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
