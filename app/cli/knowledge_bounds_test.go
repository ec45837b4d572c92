package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `rehome knowledge add` of the red team's text inputs stays under
// 256 MiB and leaves no copy of a refused file in the data folder; a text
// just under the token limit (7.9 MB) indexes under the same bound. On
// 1c9eba1: the 20 MB JSON peaked at 782 MiB, the 400 MB JSON and the
// 480 MB text went past 3 GiB (stopped there; 22.8 GiB and 15 GB in the
// issue), and the refused files' copies filled the data folder.
func TestKnowledgeAddIsBoundedInMemory(t *testing.T) {
	const bound = 256 << 20
	home, src := t.TempDir(), t.TempDir()
	if r := rehomeCLI(t, home, "assistants", "add", "--name", "kb"); r.code != 0 {
		t.Fatalf("assistants add: %s%s", r.stdout, r.stderr)
	}
	rec := `{"id":12345,"name":"Widget model A","tags":["a","b","c"],"text":"The quick brown fox jumps over the lazy dog."},`
	inputs := map[string]string{}
	put := func(name string, size int64, text string) {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			os.Truncate(p, size) // sparse: its size is what counts
		}
		inputs[name] = p
	}
	put("20MB.json", 0, "["+strings.Repeat(rec, 20_000_000/len(rec))+"1]")
	put("400MB.json", 400_000_000, "[")
	put("480MB.txt", 480_000_000, "text")
	put("7.9MB.txt", 0, strings.Repeat("The quick brown fox jumps over the lazy dog again.\n", 7_900_000/51))
	for name, p := range inputs {
		res, rss := peakRSS(t, home, 5*time.Minute, "knowledge", "add", "kb", p)
		t.Logf("knowledge add %s: peak RSS %d MiB, exit %d", name, rss>>20, res.code)
		if rss > bound {
			t.Errorf("knowledge add %s peaked at %d MiB (bound 256 MiB)", name, rss>>20)
		}
		want := "over 2,000,000 tokens"
		if name == "7.9MB.txt" {
			want = "indexed"
		}
		if !strings.Contains(res.stdout+res.stderr, want) {
			t.Errorf("knowledge add %s: want %q in\n%s%s", name, want, res.stdout, res.stderr)
		}
	}
	// Only the indexed file's copy is in the library.
	var copies []string
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && inputs[fi.Name()] != "" {
			copies = append(copies, fi.Name())
		}
		return nil
	})
	if len(copies) != 1 || copies[0] != "7.9MB.txt" {
		t.Errorf("the data folder holds copies of %v, want only 7.9MB.txt", copies)
	}
}
