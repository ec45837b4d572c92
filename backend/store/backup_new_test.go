package store

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Backups under one name (two in one millisecond: the window names them
// by the clock) get files of their own, never replacing one: BackupFile
// to the same path, as 1c9eba1 did, kept only the last.
func TestBackupNewNeverReplaces(t *testing.T) {
	s, _ := openTemp(t)
	dir := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	paths := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, size, err := s.BackupNew(dir, "rehome-20261203-120000.000")
			if err != nil || size == 0 {
				t.Error(err)
			}
			paths[i] = p
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Errorf("two backups went to %s", p)
		}
		seen[p] = true
		b, err := Open(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b.Close()
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != n || !seen[filepath.Join(dir, "rehome-20261203-120000.000.db")] || !seen[filepath.Join(dir, "rehome-20261203-120000.000-2.db")] {
		t.Errorf("%d backups left %d files: %v", n, len(entries), paths)
	}
}
