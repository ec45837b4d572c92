package assistant

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The copy into the library is itself bounded: a file that grows past
// MaxKnowledgeBytes while it is copied (its size said less when it was
// looked at) is refused, and nothing of it stays. On 1c9eba1 such a file
// went in whole (1.5 GB) before the 512 MB refusal. The bound is lowered
// to 1 MiB here; the file is 3 MiB, as if it had grown.
func TestKnowledgeCopyIsBounded(t *testing.T) {
	old := maxCopyBytes
	maxCopyBytes = 1 << 20
	defer func() { maxCopyBytes = old }()
	src := filepath.Join(t.TempDir(), "grows.txt")
	if err := os.WriteFile(src, []byte(strings.Repeat("x", 3<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	lib := NewLibrary(t.TempDir())
	_, err := lib.AddAs(context.Background(), src, "grows.txt")
	if !errors.Is(err, ErrKnowledgeTooLarge) {
		t.Fatalf("a file past the bound: %v", err)
	}
	entries, _ := os.ReadDir(lib.Dir())
	if len(entries) != 0 {
		t.Fatalf("the library kept %v", entries)
	}
	// At the bound exactly, it is copied.
	os.Truncate(src, 1<<20)
	if k, err := lib.AddAs(context.Background(), src, "grows.txt"); err != nil || k.Size != 1<<20 {
		t.Fatalf("a file at the bound: %+v %v", k, err)
	}
}
