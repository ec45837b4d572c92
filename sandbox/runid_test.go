package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRunID(t *testing.T) {
	for i := 0; i < 100; i++ {
		if err := CheckRunID(NewRunID()); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../../x", "/etc", "a/b", "run-1", strings.Repeat("a", 25), strings.Repeat("a", 27),
		strings.Repeat("A", 26), strings.Repeat("i", 26), strings.Repeat("a", 24) + "/.", strings.Repeat("a", 25) + "\x00", "..\\..\\" + strings.Repeat("a", 20)} {
		if err := CheckRunID(bad); err == nil || !strings.Contains(err.Error(), "not a run id") {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

// A run with a made-up id is refused before anything is created, even
// with a real engine.
func TestRunRefusesPathIDs(t *testing.T) {
	e := testEngine(t)
	root := t.TempDir()
	for _, id := range []string{"..", "../../escape", "x/../.."} {
		out := filepath.Join(root, "data", "runs", id)
		_, err := e.Run(context.Background(), RunRequest{ID: id, Code: "print(1)", OutputDir: out}, nil)
		if err == nil || !strings.Contains(err.Error(), "not a run id") {
			t.Fatalf("id %q: %v", id, err)
		}
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("a refused run created %v", ents)
	}
}
