package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Which host files the UI may make rehome read or write. The bridge of
// `rehome serve` is reachable by any local page that learns its token,
// and the window's page is only as safe as what it renders, so a path
// from the UI is never trusted as such:
//
//   - reads (PreviewFile, RunCode's input, LoadImage, StartSession, Ask's
//     files, ImportAssistant(s)' bundle and knowledge, the knowledge of
//     CreateAssistant/UpdateAssistant, copied into rehome's knowledge
//     library) take a file the user gave rehome: uploaded into the data
//     folder's uploads/ (the browser), a run's output in runs/, or — in
//     the window — picked in the native dialog, dropped on the window, or
//     opened with rehome;
//   - writes (SaveImage) go only to a path the user chose in the native
//     save dialog (which asks before replacing a file); a browser
//     downloads instead (ExportImage).
//
// TestEveryPathMethodFollowsTheRule holds every bound method to this.

// access remembers the paths the user chose in this session.
type access struct {
	mu    sync.Mutex
	cond  *sync.Cond
	read  map[string]bool
	write map[string]bool
}

func (a *App) grants() *access {
	a.accessOnce.Do(func() {
		a.access = &access{read: map[string]bool{}, write: map[string]bool{}}
		a.access.cond = sync.NewCond(&a.access.mu)
	})
	return a.access
}

// GrantRead records files the user gave rehome outside its dialogs —
// dropped on the window, opened with rehome — so the UI may read them.
func GrantRead(a *App, paths ...string) {
	g := a.grants()
	g.mu.Lock()
	for _, p := range paths {
		if filepath.IsAbs(p) {
			g.read[filepath.Clean(p)] = true
		}
	}
	g.mu.Unlock()
	g.cond.Broadcast()
}

func grantWrite(a *App, path string) {
	g := a.grants()
	g.mu.Lock()
	g.write[filepath.Clean(path)] = true
	g.mu.Unlock()
}

// dropGrace is how long a read waits for the window to report a drop: the
// page hears of a drop at the same moment as Go does, and may ask first.
const dropGrace = 2 * time.Second

// granted says whether the user gave path, waiting up to wait for a
// grant in flight.
func (g *access) granted(path string, wait time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.read[path] {
		return true
	}
	if wait <= 0 {
		return false
	}
	// The timer wakes the waiters under the lock, so its wake-up cannot
	// fall between the check below and Wait; it fires no earlier than end
	// (end first: a timer started before end was taken could fire a tick
	// before it, and the waiter would sleep on with nobody to wake it).
	end := time.Now().Add(wait)
	t := time.AfterFunc(time.Until(end), func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer t.Stop()
	for !g.read[path] && time.Now().Before(end) {
		g.cond.Wait()
	}
	return g.read[path]
}

// errNotGiven explains a refused read.
func errNotGiven(path string, window bool) error {
	how := "upload it: drop it on the page or use its Choose file button"
	if window {
		how = "drop it on the window or pick it with Choose file"
	}
	return fmt.Errorf("%s is not a file you gave rehome: %s (rehome reads only files you choose)", path, how)
}

// readyFile is readable once the data folder is open (ready): a file the
// user gave rehome, for a service on the database to read.
func (a *App) readyFile(path string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	return a.readable(path)
}

// readable checks that the UI may make rehome read path (see above) and
// returns it cleaned.
func (a *App) readable(path string) (string, error) {
	if path == "" {
		return "", errors.New("no file given: drop a data file or pick one")
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s is not a full path: pick the file again", path)
	}
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if part == ".." {
			return "", fmt.Errorf("%s climbs out of its folder (..): pick the file again", path)
		}
	}
	clean := filepath.Clean(path)
	if a.insideData(clean, UploadsDir, RunsDir) {
		return clean, nil
	}
	w := a.window()
	if w != nil && a.grants().granted(clean, dropGrace) {
		return clean, nil
	}
	return "", errNotGiven(path, w != nil)
}

// insideData says whether path, links resolved, is a regular file inside
// one of the data folder's dirs.
func (a *App) insideData(path string, dirs ...string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	data, err := filepath.EvalSymlinks(a.cfg.DataDir)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if strings.HasPrefix(real, filepath.Join(data, d)+string(filepath.Separator)) {
			st, err := os.Stat(real)
			return err == nil && st.Mode().IsRegular()
		}
	}
	return false
}

// writable checks that the user chose path in the save dialog.
func (a *App) writable(path string) (string, error) {
	if path == "" || !filepath.IsAbs(path) {
		return "", errors.New("choose where to save with the Save dialog")
	}
	clean := filepath.Clean(path)
	if a.window() == nil {
		return "", fmt.Errorf("%s: in a browser rehome writes no file on this machine for you; use Export, which downloads it", path)
	}
	g := a.grants()
	g.mu.Lock()
	ok := g.write[clean]
	g.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("%s was not chosen in the Save dialog: choose where to save again", path)
	}
	return clean, nil
}
