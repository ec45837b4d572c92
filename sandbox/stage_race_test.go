package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A run's private folder is made and locked as one step for every sweep:
// with another process's sweepStages running the whole time, 300 new
// stages all start, each folder still there once made. On 1c9eba1 the
// sweep removed a folder between its mkdir and its lock ("create a
// private folder for the run: open …: no such file or directory", once in
// six runs of a desktop user), and here 18 of these 300.
func TestStageCreateRacesTheSweep(t *testing.T) {
	root := filepath.Join(t.TempDir(), stageDirName)
	roots := []string{root}
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				sweepStages(roots)
			}
		}()
	}
	failed := 0
	for i := 0; i < 300; i++ {
		st, err := newStage(roots, 0)
		if err != nil {
			failed++
			continue
		}
		if _, err := os.Stat(st.dir); err != nil {
			failed++ // swept after it was made, while the run held it
		}
		st.remove()
	}
	stop.Store(true)
	wg.Wait()
	if failed > 0 {
		t.Fatalf("%d of 300 stages did not start with sweeps running", failed)
	}
	// A folder a crash left being made is swept once it is old enough.
	left := filepath.Join(root, makingPrefix+"left")
	os.Mkdir(left, 0o700)
	if sweepStages(roots); !exists(left) {
		t.Fatal("a folder being made was swept")
	}
	old := time.Now().Add(-2 * makingGrace)
	os.Chtimes(left, old, old)
	if sweepStages(roots); exists(left) {
		t.Fatal("a folder a crash left being made was not swept")
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
