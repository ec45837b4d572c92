package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/llmtest"
	"rehome/internal/testsupport/tinymodel"
	"rehome/internal/testsupport/zimtest"
)

// cliZIM is the small real test ZIM (the json and csv pages and the
// tutorial of the Python docs), built with zimwriterfs.
func cliZIM(t *testing.T) string {
	t.Helper()
	zimtest.Need(t)
	pages := append(zimtest.Pages(t, "library/j", 0), zimtest.Pages(t, "library/cs", 0)...)
	pages = append(pages, zimtest.Pages(t, "tutorial/", 0)...)
	return zimtest.Build(t, "python311-test", "Python 3.11 docs (test)", pages, false)
}

// `rehome library`: a real ZIM added (copied) and listed, searched
// through the real kiwix-serve, a zip named .zim refused in words,
// the settings (a bad SearXNG address refused, the Brave key read from
// stdin and never shown, the LAN switch), and removed.
func TestLibraryCLI(t *testing.T) {
	home := t.TempDir()
	zim := cliZIM(t)
	r := rehomeCLI(t, home, "library", "add", zim, "--name", "py", "--copy", "--json")
	var lib struct {
		Name, Title, Path string
		Articles          int
		Copied, FullText  bool `json:"-"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &lib) != nil || lib.Name != "py" || lib.Title != "Python 3.11 docs (test)" || lib.Articles < 20 || !strings.HasPrefix(lib.Path, home) {
		t.Fatalf("library add: %+v", r)
	}
	bad := filepath.Join(t.TempDir(), "wikipedia.zim")
	os.WriteFile(bad, append([]byte("PK\x03\x04"), make([]byte, 100)...), 0o644)
	if r := rehomeCLI(t, home, "library", "add", bad); r.code != 1 || !strings.Contains(r.stderr, "zip archive") {
		t.Fatalf("a zip named .zim: %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "list"); r.code != 0 || !strings.Contains(r.stdout, "py ") || !strings.Contains(r.stdout, "full text") {
		t.Fatalf("library list: %+v", r)
	}
	r = rehomeCLI(t, home, "library", "search", "--json", "json", "decoder")
	var res struct {
		Hits []struct{ Title, URL string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Hits) == 0 || res.Hits[0].URL != "zim://py/library/json.html" {
		t.Fatalf("library search: %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "search", "csv", "reader"); r.code != 0 || !strings.Contains(r.stdout, "[1] csv — CSV File Reading and Writing") {
		t.Fatalf("library search (words): %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "settings", "searxng=ftp://x"); r.code != 1 || !strings.Contains(r.stderr, "is not a SearXNG address") {
		t.Fatalf("a bad SearXNG: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "library", "settings", "brave-key=on-the-command-line"), "read from standard input")
	r = rehomeCLIIn(t, home, strings.NewReader("brave-canary-key\n"), "library", "settings", "brave-key=-", "lan=on")
	if r.code != 0 || !strings.Contains(r.stdout, "Brave Search API key: set (not shown)") || !strings.Contains(r.stdout, "LAN pages: allowed") || strings.Contains(r.stdout+r.stderr, "brave-canary-key") {
		t.Fatalf("settings: %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "settings", "--json"); strings.Contains(r.stdout, "brave-canary-key") || !strings.Contains(r.stdout, `"has_brave_key": true`) {
		t.Fatalf("the key came back: %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "rm", "py"); r.code != 0 || !strings.Contains(r.stdout, "removed py and rehome's copy") {
		t.Fatalf("library rm: %+v", r)
	}
	if _, err := os.Stat(lib.Path); !os.IsNotExist(err) {
		t.Fatalf("rehome's copy is still there: %v", err)
	}
	if _, err := os.Stat(zim); err != nil {
		t.Fatalf("the user's file went: %v", err)
	}
}

// `rehome ask --browse` on the recorded wire of the real llama-server
// (backend/llm/testdata/browse-tools: the tiny model calling web_search,
// then open_url): the tools run for real — kiwix-serve, the sandbox —
// and the answer prints its sources with their zim:// addresses; with
// no library carried, --browse says what to do.
func TestAskBrowseCLI(t *testing.T) {
	needPodman(t)
	if _, err := os.Stat(filepath.Join("..", "..", "backend", "llm", "testdata", "browse-tools", "03.sse")); err != nil {
		t.Skip("skipped: the recorded wire backend/llm/testdata/browse-tools is missing: record it with REHOME_RECORD=1 go test -run TestBrowseRealModel ./backend/core")
	}
	home := t.TempDir()
	rec := llmtest.Replay(t, filepath.Join("..", "..", "backend", "llm", "testdata"), "browse-tools")
	if r := rehomeCLI(t, home, "ask", "--browse", "--server", rec.Base(), "--model", "qwen2.5:7b", "What decodes JSON?"); r.code != 1 || !strings.Contains(r.stderr, "nothing to browse") || !strings.Contains(r.stderr, "rehome library add") {
		t.Fatalf("--browse with nothing to browse: %+v", r)
	}
	if r := rehomeCLI(t, home, "library", "add", cliZIM(t), "--name", "py"); r.code != 0 {
		t.Fatalf("library add: %+v", r)
	}
	r := rehomeCLI(t, home, "ask", "--browse", "--server", rec.Base(), "--model", "qwen2.5:7b", "What decodes JSON?")
	want := strings.Join(tinymodel.BrowseScript().Answer, "")
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "[1] json — JSON encoder and decoder") || !strings.Contains(r.stdout, "— zim://py/library/json.html") {
		t.Fatalf("ask --browse: %+v", r)
	}
}
