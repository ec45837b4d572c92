package llamarun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFindsTheBuildCache: from a clone, `make llama` leaves llama-server in
// the build cache (build/llm/llama-server.sh: <cache>/llama-server-<commit>-<key>/),
// not beside the binary nor in /usr/lib/rehome; rehome finds the newest
// CPU build there, never the Vulkan build's folder for the CPU one, and
// says where it looked when there is none.
func TestFindsTheBuildCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("REHOME_CACHE", cache)
	t.Setenv("REHOME_LLAMA_DIR", t.TempDir())
	t.Setenv("REHOME_LLAMA_SERVER", "")
	t.Setenv("REHOME_LLAMA_SERVER_VULKAN", "")
	os.Unsetenv("REHOME_LLAMA_SERVER")
	os.Unsetenv("REHOME_LLAMA_SERVER_VULKAN")
	if _, err := os.Stat("/usr/lib/rehome/llama-server"); err == nil {
		t.Skip("skipped: /usr/lib/rehome holds a llama-server, found before the cache")
	}
	if _, err := Find(context.Background()); !errors.Is(err, ErrNoRuntime) || !contains(err.Error(), cache) {
		t.Fatalf("an empty cache: %v, want ErrNoRuntime naming %s", err, cache)
	}
	put := func(dir string, age time.Duration) string {
		p := filepath.Join(cache, dir, "llama-server")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho 'Available devices:'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		return p
	}
	put("llama-server-11111111-aaaaaaaaaaaa", 2*time.Hour)
	newer := put("llama-server-80fb11ac-0c8b080b390f", time.Hour)
	put("llama-server-vulkan-80fb11ac-1e2d3c4b5a69", 0) // newest, but the Vulkan build
	if err := os.WriteFile(filepath.Join(cache, "llama-server-notes"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := find("REHOME_LLAMA_SERVER", "llama-server"); got != newer {
		t.Fatalf("the CPU build found: %q, want %q", got, newer)
	}
	if got := find("REHOME_LLAMA_SERVER_VULKAN", "llama-server-vulkan"); filepath.Base(filepath.Dir(got)) != "llama-server-vulkan-80fb11ac-1e2d3c4b5a69" {
		t.Fatalf("the Vulkan build found: %q", got)
	}
	// A folder beside the binary still wins over the cache.
	own := t.TempDir()
	if err := os.WriteFile(filepath.Join(own, "llama-server"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REHOME_LLAMA_DIR", own)
	if got := find("REHOME_LLAMA_SERVER", "llama-server"); got != filepath.Join(own, "llama-server") {
		t.Fatalf("REHOME_LLAMA_DIR lost to the cache: %q", got)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
