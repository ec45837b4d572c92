package app

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Backups taken at once (in one millisecond, where the name's clock is
// the same) each get a file of their own; none replaces another. On
// 1c9eba1 the second of two in one millisecond silently replaced the
// first (TestBackupDatabaseWhileOpen caught it once on a fresh machine).
func TestBackupsNeverReplaceEachOther(t *testing.T) {
	dir := t.TempDir()
	a := New(Config{DataDir: dir})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const n = 16
	paths := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := a.BackupDatabase()
			if err != nil {
				t.Error(err)
			}
			paths[i] = info.Path
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Errorf("two backups were written to %s", p)
		}
		seen[p] = true
	}
	files, _ := os.ReadDir(filepath.Join(dir, BackupsDir))
	if len(files) != n {
		t.Errorf("%d backups made %d files", n, len(files))
	}
}
