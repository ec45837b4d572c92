package cli

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/memory"
	"rehome/backend/store"
)

// memories is `rehome memory list --json` in home.
func memories(t *testing.T, home string, args ...string) []memory.Memory {
	t.Helper()
	r := rehomeCLI(t, home, append([]string{"memory", "list", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("memory list: %+v", r)
	}
	var out []memory.Memory
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("memory list printed no JSON: %q", r.stdout)
	}
	return out
}

// rehome memory: add, list (search, an assistant's own), edit, rm, import
// ChatGPT's list from a file and from stdin, settings; bad input in words;
// the memories are in `rehome backup` and never in an assistant's bundle.
func TestMemoryCLI(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "memory", "add", "Prefers", "metric", "units.")
	if r.code != 0 || len(strings.TrimSpace(r.stdout)) != 26 {
		t.Fatalf("add: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	if r := rehomeCLI(t, home, "memory", "add", "prefers metric units."); r.code != 0 || !strings.Contains(r.stderr, "already remembered as "+id) {
		t.Fatalf("the same again: %+v", r)
	}
	a := addAssistant(t, home, "--name", "Baker")["id"].(string)
	if r := rehomeCLI(t, home, "memory", "add", "--assistant", "Baker", "Bakes on Fridays."); r.code != 0 {
		t.Fatalf("add --assistant: %+v", r)
	}
	if got := memories(t, home, "--assistant", "baker"); len(got) != 1 || got[0].Assistant != a || got[0].Text != "Bakes on Fridays." {
		t.Fatalf("Baker's own: %+v", got)
	}
	if got := memories(t, home, "--search", "METRIC"); len(got) != 1 || got[0].ID != id {
		t.Fatalf("search: %+v", got)
	}
	if r := rehomeCLI(t, home, "memory", "edit", id, "Prefers SI units."); r.code != 0 {
		t.Fatalf("edit: %+v", r)
	}
	// ChatGPT's list: its Model Set Context as printed (a file), the
	// dialog's lines pasted (stdin).
	fixture, _ := filepath.Abs("../../backend/memory/testdata/model-set-context.txt")
	if r := rehomeCLI(t, home, "memory", "import", fixture); r.code != 0 || !strings.Contains(r.stderr, "3 memories imported, 0 kept already") {
		t.Fatalf("import file: %+v", r)
	}
	r = rehomeCLIIn(t, home, strings.NewReader("Saved memories\nUser loves dogs.\nHas a cat named Miso\n"+strings.Repeat("x", 3000)+"\n"), "memory", "import", "--json", "-")
	var imp struct {
		Added, Already int
		Skipped        []string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &imp) != nil || imp.Added != 1 || imp.Already != 1 || len(imp.Skipped) != 1 {
		t.Fatalf("import stdin: %+v %+v", r, imp)
	}
	all := memories(t, home)
	if len(all) != 6 {
		t.Fatalf("%d memories: %+v", len(all), all)
	}
	// Bad input: a huge memory, an unknown id, nothing to import, a bad mode.
	huge := filepath.Join(t.TempDir(), "huge.txt")
	os.WriteFile(huge, []byte(strings.Repeat("y", 6<<20)), 0o600)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"memory", "add", strings.Repeat("z", 2500)}, 1, "at most 2000 are kept"},
		{[]string{"memory", "rm", "nope"}, 1, "no such memory"},
		{[]string{"memory", "import", huge}, 1, "too large"},
		{[]string{"memory", "import", os.DevNull}, 1, "no memories found"},
		{[]string{"memory", "settings", "--assistant", "Baker", "--mode", "sometimes"}, 1, "on, off or own"},
		{[]string{"memory", "add"}, 2, "text to remember"},
	} {
		if r := rehomeCLI(t, home, c.args...); r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%.60v: %+v", c.args, r)
		}
	}
	if r := rehomeCLI(t, home, "memory", "settings", "--json", "--assistant", "Baker", "--mode", "on"); r.code != 0 || !strings.Contains(r.stdout, `"`+a+`": "on"`) {
		t.Fatalf("settings: %+v", r)
	}
	if r := rehomeCLI(t, home, "memory", "settings", "off"); r.code != 0 || !strings.Contains(r.stdout, "memory: off") {
		t.Fatalf("settings off: %+v", r)
	}

	// In the backup; never in an assistant's bundle.
	bak := filepath.Join(t.TempDir(), "b.db")
	if r := rehomeCLI(t, home, "backup", bak); r.code != 0 {
		t.Fatalf("backup: %+v", r)
	}
	st, err := store.Open(bak, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := st.Count(store.Memories)
	st.Close()
	if n != 6 {
		t.Fatalf("the backup holds %d memories", n)
	}
	bundle := filepath.Join(t.TempDir(), "baker.tar.gz")
	if r := rehomeCLI(t, home, "assistants", "export", a, "--format", "bundle", "-o", bundle); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	if data := unpacked(t, bundle); len(data) == 0 || strings.Contains(data, "Bakes on Fridays") || !strings.Contains(data, "Baker") {
		t.Fatalf("the bundle holds the assistant's memory:\n%s", data)
	}
	for _, m := range all {
		if r := rehomeCLI(t, home, "memory", "rm", m.ID); r.code != 0 {
			t.Fatalf("rm: %+v", r)
		}
	}
	if got := memories(t, home); len(got) != 0 {
		t.Fatalf("left after rm: %+v", got)
	}
}

// unpacked is every file of a .tar.gz bundle, one after the other.
func unpacked(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var b strings.Builder
	for {
		if _, err := tr.Next(); err != nil {
			break
		}
		data, _ := io.ReadAll(tr)
		b.Write(data)
	}
	return b.String()
}
