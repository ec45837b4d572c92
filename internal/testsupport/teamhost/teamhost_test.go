package teamhost

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/system"
)

// The fixture gives a rootless service of another user that cannot read
// the caller's files, and a second call finds it at once.
func TestEnsure(t *testing.T) {
	start := time.Now()
	h := Ensure(t, User)
	t.Logf("first Ensure: %s", time.Since(start).Round(time.Millisecond))
	ctx, err := h.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	info, err := system.Info(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Host.Security.Rootless {
		t.Errorf("%s's service is not rootless", h.User)
	}
	if info.Store.GraphDriverName != "overlay" {
		t.Errorf("%s's service stores images with %s, want overlay", h.User, info.Store.GraphDriverName)
	}
	st, err := os.Stat(h.RuntimeDir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("runtime folder %s: %v %v (want 0700)", h.RuntimeDir, st.Mode(), err)
	}
	p := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(p, []byte("x"), 0o600)
	if h.CanRead(p) {
		t.Errorf("%s reads the caller's private file", h.User)
	}
	start = time.Now()
	again := Ensure(t, User)
	took := time.Since(start)
	t.Logf("second Ensure: %s", took.Round(time.Millisecond))
	if again.URI != h.URI {
		t.Errorf("second Ensure: %s, first %s", again.URI, h.URI)
	}
	// The image through the service: the second time a look-up only.
	start = time.Now()
	ref := h.EnsureSandboxImage(t)
	t.Logf("image %s: %s", ref, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	h.EnsureSandboxImage(t)
	t.Logf("image again: %s", time.Since(start).Round(time.Millisecond))
	h2 := Ensure(t, User2)
	if h2.UID == h.UID || h2.URI == h.URI {
		t.Errorf("the two team users share an id or a socket: %+v %+v", h, h2)
	}
}
