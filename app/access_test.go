package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/sandbox"
)

// TestBrowserReadsOnlyWhatWasGiven attacks every bound method that takes
// a path with what a hostile caller of the bridge would try.
func TestBrowserReadsOnlyWhatWasGiven(t *testing.T) {
	a := newTestApp(t)
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	up := filepath.Join(a.cfg.DataDir, UploadsDir, "abc", "ok.csv")
	os.MkdirAll(filepath.Dir(up), 0o700)
	os.WriteFile(up, []byte("a,b\n1,2\n"), 0o600)
	outside := filepath.Join(t.TempDir(), "private.csv")
	os.WriteFile(outside, []byte("secret,x\n1,2\n"), 0o600)
	link := filepath.Join(a.cfg.DataDir, UploadsDir, "abc", "link.csv")
	os.Symlink(outside, link)
	dblink := filepath.Join(a.cfg.DataDir, UploadsDir, "abc", "db.csv")
	os.Symlink(filepath.Join(a.cfg.DataDir, "rehome.db"), dblink)

	if _, err := a.PreviewFile(up); err != nil {
		t.Fatalf("an upload: %v", err)
	}
	attacks := []string{
		"/etc/shadow", "/etc/passwd", outside, link, dblink,
		filepath.Join(a.cfg.DataDir, "rehome.db"),
		filepath.Join(a.cfg.DataDir, UploadsDir, "..", "rehome.db"),
		filepath.Join(a.cfg.DataDir, UploadsDir, "abc", "..", "..", "rehome.db"),
		filepath.Join(a.cfg.DataDir, UploadsDir), // a folder
		"/proc/self/environ", "../../etc/passwd", "uploads/abc/ok.csv",
	}
	for _, p := range attacks {
		if _, err := a.PreviewFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("PreviewFile(%q): %v", p, err)
		}
		if _, err := a.RunCode(sandbox.RunRequest{Code: "print(1)", InputPath: p}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("RunCode input %q: %v", p, err)
		}
		if _, err := a.LoadImage(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("LoadImage(%q): %v", p, err)
		}
		if _, err := a.ImportAssistant(AssistantImport{Bundle: p}); err == nil {
			t.Errorf("ImportAssistant bundle %q allowed", p)
		}
		if _, err := a.ImportAssistant(AssistantImport{JSON: `{"name":"x"}`, Knowledge: []string{p}}); err == nil {
			t.Errorf("ImportAssistant knowledge %q allowed", p)
		}
		if _, err := a.Ask(AskRequest{Question: "what is in it?", Files: []string{p}}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Ask with file %q: %v", p, err)
		}
	}
	if _, err := a.PreviewFile(outside); err == nil || !strings.Contains(err.Error(), "Choose file") {
		t.Errorf("the refusal does not say what to do: %v", err)
	}
	// Writes: never from a browser, nowhere, not over an existing file.
	precious := filepath.Join(t.TempDir(), "precious.txt")
	os.WriteFile(precious, []byte("keep"), 0o600)
	for _, p := range []string{precious, filepath.Join(t.TempDir(), "new.tar"), "/etc/passwd"} {
		if err := a.SaveImage(p); err == nil || !strings.Contains(err.Error(), "browser") {
			t.Errorf("SaveImage(%q) in a browser: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(precious); string(b) != "keep" {
		t.Fatal("the file was overwritten")
	}
	// Run ids are rehome's: a path as id is refused before any folder.
	for _, id := range []string{"..", "../../escape", "/tmp/x"} {
		if _, err := a.RunCode(sandbox.RunRequest{ID: id, Code: "print(1)", InputPath: up}); err == nil || !strings.Contains(err.Error(), "not a run id") {
			t.Errorf("RunCode id %q: %v", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(a.cfg.DataDir, RunsDir)); !os.IsNotExist(err) {
		t.Errorf("a refused run made a folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(a.cfg.DataDir), "escape")); !os.IsNotExist(err) {
		t.Errorf("a refused run made a folder outside the data folder: %v", err)
	}
}

// TestWindowReadsWhatTheUserChose: in the window, files picked in the
// dialog, dropped, or opened with rehome are readable; others are not;
// writes go only where the Save dialog said.
func TestWindowReadsWhatTheUserChose(t *testing.T) {
	a := newTestApp(t)
	dir := t.TempDir()
	picked := filepath.Join(dir, "picked.csv")
	dropped := filepath.Join(dir, "dropped.csv")
	other := filepath.Join(dir, "other.csv")
	for _, p := range []string{picked, dropped, other} {
		os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600)
	}
	w := &pickWindow{fakeWindow: fakeWindow{opened: []string{}}, pick: picked}
	a.SetEmitter(w)

	start := time.Now()
	if _, err := a.PreviewFile(other); err == nil || !strings.Contains(err.Error(), "drop it on the window") {
		t.Fatalf("an unchosen file in the window: %v", err)
	}
	if waited := time.Since(start); waited < dropGrace/2 || waited > dropGrace*3 {
		t.Fatalf("waited %v for a drop", waited)
	}
	if p, err := a.PickFile(); err != nil || p != picked {
		t.Fatal(p, err)
	}
	if _, err := a.PreviewFile(picked); err != nil {
		t.Fatalf("picked: %v", err)
	}
	// A drop reported a moment after the page asks is still honoured.
	go func() { time.Sleep(200 * time.Millisecond); GrantRead(a.App, dropped) }()
	if _, err := a.PreviewFile(dropped); err != nil {
		t.Fatalf("dropped: %v", err)
	}
	// Writes: only the Save dialog's answer.
	w.save = filepath.Join(dir, "image.tar")
	if err := a.SaveImage(w.save); err == nil || !strings.Contains(err.Error(), "Save dialog") {
		t.Fatalf("SaveImage before the dialog: %v", err)
	}
	if err := a.SaveImage(other); err == nil || !strings.Contains(err.Error(), "Save dialog") {
		t.Fatalf("SaveImage over an unchosen file: %v", err)
	}
	if p, err := a.ChooseSavePath("Save", "image.tar"); err != nil || p != w.save {
		t.Fatal(p, err)
	}
	if _, err := a.writable(w.save); err != nil {
		t.Fatalf("the chosen path: %v", err)
	}
}

type pickWindow struct {
	fakeWindow
	pick string
}

func (p *pickWindow) OpenFileDialog(string, []FileFilter) (string, error) { return p.pick, nil }
