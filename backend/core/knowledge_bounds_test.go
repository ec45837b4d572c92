package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/knowledge"
)

// The path the window and `rehome serve` take (core.Knowledge.Add, as the
// App's KnowledgeAdd calls it): the red team's 400 MB JSON and 480 MB text
// are refused as too many tokens before they are copied, the assistant's
// record names neither, and the library keeps no copy. On 1c9eba1 they
// were copied, then read whole (22.8 GiB, 15 GB).
func TestKnowledgeAddIsBoundedThroughCore(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	c := openCore(t, dir, Options{})
	a, err := c.Assistants().Create(assistantNamed("Kettle Helper"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for name, size := range map[string]int64{"400MB.json": 400_000_000, "480MB.txt": 480_000_000} {
		p := filepath.Join(src, name)
		os.WriteFile(p, []byte("["), 0o600)
		os.Truncate(p, size) // sparse: its size is what counts
		paths = append(paths, p)
	}
	res, err := c.Knowledge().Add(context.Background(), a.ID, paths, nil)
	if err != nil || len(res) != 2 {
		t.Fatalf("add: %v %+v", err, res)
	}
	for _, r := range res {
		if r.State != knowledge.StateFailed || !strings.Contains(r.Reason, knowledge.ErrTooManyTokens.Error()) {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if got := copies(t, dir); len(got) != 0 {
		t.Errorf("refused files left copies: %v", got)
	}
	if rec, _ := c.Assistants().Get(a.ID); len(rec.Knowledge) != 0 {
		t.Errorf("the record names refused files: %+v", rec.Knowledge)
	}
}
