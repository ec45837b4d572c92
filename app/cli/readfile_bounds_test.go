package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The files a command reads whole — an action's OpenAPI schema, an
// assistant's instructions file, an assistant's JSON, an MCP host's
// configuration (read by `mcp import`, merged by `mcp config --write`) —
// are bounded before they are read: a 2 GiB file is refused by its size,
// and /dev/zero (no size, never ends) is cut at the bound and refused;
// each command stays under 256 MiB and says what the file may hold. On
// 2e30bb1 each read the file whole first (2 GiB in memory; /dev/zero
// until the kernel ended rehome).
func TestFilesReadWholeAreBounded(t *testing.T) {
	const bound = 256 << 20
	home, src := t.TempDir(), t.TempDir()
	if r := rehomeCLI(t, home, "assistants", "add", "--name", "kb"); r.code != 0 {
		t.Fatalf("assistants add: %s%s", r.stdout, r.stderr)
	}
	big := func(name string) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Truncate(p, 2<<30) // sparse: its size is what counts
		return p
	}
	cmds := []struct {
		what string
		args func(file string) []string
		word string
	}{
		{"actions add", func(f string) []string { return []string{"actions", "add", "kb", f} }, "an OpenAPI schema is at most 8 MiB"},
		{"assistants add --instructions-file", func(f string) []string {
			return []string{"assistants", "add", "--name", "big", "--instructions-file", f}
		}, "an assistant's instructions file is at most 256 KiB"},
		{"assistants import", func(f string) []string { return []string{"assistants", "import", f} }, "is at most 64 MiB"},
		{"mcp import", func(f string) []string { return []string{"mcp", "import", "kb", f} }, "an MCP configuration is at most 4 MiB"},
		{"mcp config --write", func(f string) []string {
			return []string{"mcp", "config", "--client", "claude", "--assistant", "kb", "--write", "--file", f}
		}, "an MCP configuration is at most 4 MiB"},
	}
	for _, c := range cmds {
		for _, file := range []string{big(strings.ReplaceAll(c.what, " ", "_") + ".json"), "/dev/zero"} {
			res, rss := peakRSS(t, home, 2*time.Minute, c.args(file)...)
			t.Logf("rehome %s %s: peak RSS %d MiB, exit %d: %s", c.what, file, rss>>20, res.code, lastLine(res.stderr))
			if rss > bound {
				t.Errorf("rehome %s of %s peaked at %d MiB (bound 256 MiB)", c.what, file, rss>>20)
			}
			if res.code == 0 || !strings.Contains(res.stderr, c.word) {
				t.Errorf("rehome %s of %s: exit %d, said %q; want the bound in words (%q)", c.what, file, res.code, res.stderr, c.word)
			}
		}
	}
	if r := rehomeCLI(t, home, "assistants", "list"); strings.Contains(r.stdout, "big") {
		t.Fatalf("a refused instructions file made an assistant:\n%s", r.stdout)
	}
}
