package app

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/sandbox"
)

func newTestApp(t *testing.T) *Host {
	t.Helper()
	return New(Config{DataDir: t.TempDir()})
}

// fakeWindow stands in for the desktop window's dialogs.
type fakeWindow struct {
	save   string
	opened []string
	events []string
}

func (f *fakeWindow) Emit(event string, payload any) { f.events = append(f.events, event) }
func (f *fakeWindow) OpenFileDialog(string, []FileFilter) (string, error) {
	return "/picked.csv", nil
}
func (f *fakeWindow) SaveFileDialog(string, string) (string, error) { return f.save, nil }
func (f *fakeWindow) TakeOpened() []string {
	o := f.opened
	f.opened = nil
	return o
}

func TestPreviewFile(t *testing.T) {
	a := newTestApp(t)
	p := filepath.Join(a.cfg.DataDir, UploadsDir, "abc", "s.csv")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600)
	pv, err := a.PreviewFile(p)
	if err != nil || pv.RowCount != 1 || len(pv.Columns) != 2 {
		t.Fatalf("%+v %v", pv, err)
	}
	if _, err := a.PreviewFile("s.csv"); err == nil || !strings.Contains(err.Error(), "not a full path") {
		t.Fatalf("relative: %v", err)
	}
	if _, err := a.PreviewFile(""); err == nil {
		t.Fatal("empty path accepted")
	}
}

func TestDialogsNeedTheWindow(t *testing.T) {
	a := newTestApp(t)
	if _, err := a.PickFile(); err == nil || !strings.Contains(err.Error(), "Choose file") {
		t.Fatalf("PickFile in a browser: %v", err)
	}
	if got := a.OpenedFiles(); got == nil || len(got) != 0 {
		t.Fatalf("OpenedFiles in a browser: %#v", got)
	}
	w := &fakeWindow{opened: []string{"/x.csv"}}
	a.SetEmitter(w)
	if p, err := a.PickFile(); err != nil || p != "/picked.csv" {
		t.Fatalf("PickFile: %q %v", p, err)
	}
	if got := a.OpenedFiles(); len(got) != 1 || got[0] != "/x.csv" {
		t.Fatalf("OpenedFiles: %q", got)
	}
	if got := a.OpenedFiles(); len(got) != 0 {
		t.Fatalf("OpenedFiles twice: %q", got)
	}
}

func TestSaveOutputStaysInsideRunsAndUploads(t *testing.T) {
	a := newTestApp(t)
	w := &fakeWindow{}
	a.SetEmitter(w)
	out := filepath.Join(a.cfg.DataDir, RunsDir, "r1", "plot.png")
	os.MkdirAll(filepath.Dir(out), 0o700)
	os.WriteFile(out, []byte("png"), 0o600)
	w.save = filepath.Join(t.TempDir(), "mine.png")
	got, err := a.SaveOutput(out)
	if err != nil || got != w.save {
		t.Fatalf("save: %q %v", got, err)
	}
	if b, _ := os.ReadFile(w.save); string(b) != "png" {
		t.Fatalf("copied %q", b)
	}
	// Cancelled dialog.
	w.save = ""
	if got, err := a.SaveOutput(out); err != nil || got != "" {
		t.Fatalf("cancel: %q %v", got, err)
	}
	// Anything outside runs/ and uploads/ is refused, links included.
	secret := filepath.Join(a.cfg.DataDir, "rehome.db")
	os.WriteFile(secret, []byte("db"), 0o600)
	link := filepath.Join(a.cfg.DataDir, RunsDir, "r1", "link.png")
	os.Symlink(secret, link)
	for _, p := range []string{secret, link, filepath.Join(a.cfg.DataDir, RunsDir, "..", "rehome.db"), "/etc/passwd", "runs/r1/plot.png", filepath.Join(a.cfg.DataDir, RunsDir)} {
		w.save = filepath.Join(t.TempDir(), "x")
		if _, err := a.SaveOutput(p); err == nil {
			t.Errorf("SaveOutput(%s) was allowed", p)
		}
	}
}

func TestCleanFileName(t *testing.T) {
	for in, want := range map[string]string{
		"data.csv":                        "data.csv",
		"../../etc/passwd":                "passwd",
		`C:\Users\me\q1.xlsx`:             "q1.xlsx",
		".hidden.csv":                     "hidden.csv",
		"a:b*c?.csv":                      "a_b_c_.csv",
		"tab\there.csv":                   "tab_here.csv",
		"CON.csv":                         "_CON.csv",
		"":                                "data",
		"..":                              "data",
		"Übersicht 2024.csv":              "Übersicht 2024.csv",
		strings.Repeat("é", 100) + ".csv": strings.Repeat("é", 58) + ".csv",
	} {
		if got := CleanFileName(in); got != want {
			t.Errorf("CleanFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUIEventIsLogged(t *testing.T) {
	var buf bytes.Buffer
	a := New(Config{DataDir: t.TempDir(), Log: slog.New(slog.NewJSONHandler(&buf, nil))})
	a.UIEvent("plot shown", map[string]any{"since_open_ms": 1234, "file": strings.Repeat("x", 1000)})
	out := buf.String()
	if !strings.Contains(out, `"msg":"ui event"`) || !strings.Contains(out, `"event":"plot shown"`) || !strings.Contains(out, `"since_open_ms":1234`) || len(out) > 800 {
		t.Fatalf("log: %s", out)
	}
}

func TestRunLimits(t *testing.T) {
	a := newTestApp(t)
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	l, err := a.RunLimits()
	if err != nil || l != sandbox.DefaultLimits {
		t.Fatalf("defaults: %+v %v", l, err)
	}
	want := sandbox.DefaultLimits
	want.Timeout = 2 * time.Minute
	want.Memory = 256 * sandbox.MiB
	got, err := a.SetRunLimits(want)
	if err != nil || got != want {
		t.Fatalf("set: %+v %v", got, err)
	}
	if l, _ := a.RunLimits(); l != want {
		t.Fatalf("not stored: %+v", l)
	}
	// Out of the safe range: refused in words, nothing changed.
	for _, bad := range []func(*sandbox.Limits){
		func(l *sandbox.Limits) { l.Timeout = 2 * time.Hour },
		func(l *sandbox.Limits) { l.Memory = 1 << 50 },
		func(l *sandbox.Limits) { l.CPUs = 10000 },
		func(l *sandbox.Limits) { l.Pids = 3 },
		func(l *sandbox.Limits) {
			l.Memory = 64 * sandbox.MiB
			l.OutputBytes = 200 * sandbox.MiB
			l.TmpSize = 100 * sandbox.MiB
		},
	} {
		l := want
		bad(&l)
		if _, err := a.SetRunLimits(l); err == nil || !strings.Contains(err.Error(), "choose between") && !strings.Contains(err.Error(), "memory") {
			t.Errorf("SetRunLimits(%+v) = %v", l, err)
		}
	}
	if l, _ := a.RunLimits(); l != want {
		t.Fatalf("a refused change was stored: %+v", l)
	}
	b := a.RunLimitBounds()
	if b.Max.CPUs < 1 || b.Max.Memory < sandbox.DefaultLimits.Memory || b.Min.Timeout != time.Second {
		t.Fatalf("bounds %+v", b)
	}
	if l, err := a.ResetRunLimits(); err != nil || l != sandbox.DefaultLimits {
		t.Fatalf("reset: %+v %v", l, err)
	}
	if l, _ := a.RunLimits(); l != sandbox.DefaultLimits {
		t.Fatalf("reset not stored: %+v", l)
	}
}

func TestChooseSavePath(t *testing.T) {
	a := newTestApp(t)
	if _, err := a.ChooseSavePath("Save", "x.tar.gz"); err == nil {
		t.Fatal("a browser got a save dialog")
	}
	a.SetEmitter(&fakeWindow{save: "/home/me/x.tar.gz"})
	if p, err := a.ChooseSavePath("Save", "../x.tar.gz"); err != nil || p != "/home/me/x.tar.gz" {
		t.Fatalf("%q %v", p, err)
	}
}
