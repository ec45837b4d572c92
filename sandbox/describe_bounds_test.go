package sandbox

import (
	"os"
	"strings"
	"testing"

	"rehome/internal/testsupport/hostilepodman"
	"rehome/sandbox/link"
)

// A service that describes itself with fields of 1 MiB each, terminal
// escapes among them, and 100,000 cgroup controllers: what rehome keeps
// of it (the cache folder, the self-test, the window's host dialog) is
// 200 printable characters a field and 32 controllers. On 2e30bb1 every
// byte of it was kept and shown.
func TestPodmanDescriptionIsBounded(t *testing.T) {
	srv, err := hostilepodman.Start(hostilepodman.Dir(t), hostilepodman.Liar, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conn, err := link.Open(t.Context(), link.ConnectOptions{URI: srv.URI})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cache := t.TempDir()
	e := &Engine{opts: Options{CacheDir: cache}}
	for range 2 { // asked, then read back from the cache folder
		h, err := e.describe(t.Context(), conn)
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
