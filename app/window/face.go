package window

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"rehome/app"
)

// window is the desktop window as the App sees it: events, native
// dialogs, and the files opened with rehome.
type window struct {
	log    *slog.Logger
	host   *app.Host // its events go out through the App's emitter (this window)
	mu     sync.Mutex
	ctx    context.Context
	opened []string
}

var _ app.Window = (*window)(nil)

func (w *window) attach(ctx context.Context) {
	w.mu.Lock()
	w.ctx = ctx
	w.mu.Unlock()
}

func (w *window) context() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// Emit sends a progress event to the UI.
func (w *window) Emit(event string, payload any) {
	if ctx := w.context(); ctx != nil {
		runtime.EventsEmit(ctx, event, payload)
	}
}

// OpenFileDialog shows GTK's file chooser.
func (w *window) OpenFileDialog(title string, filters []app.FileFilter) (string, error) {
	ctx := w.context()
	if ctx == nil {
		return "", errors.New("the window is still starting: try again in a moment")
	}
	var fs []runtime.FileFilter
	for _, f := range filters {
		fs = append(fs, runtime.FileFilter{DisplayName: f.Name, Pattern: f.Patterns})
	}
	home, _ := os.UserHomeDir()
	return runtime.OpenFileDialog(ctx, runtime.OpenDialogOptions{Title: title, Filters: fs, DefaultDirectory: home})
}

// OpenFilesDialog shows GTK's file chooser for one or more files,
// starting in dir.
func (w *window) OpenFilesDialog(title, dir string, filters []app.FileFilter) ([]string, error) {
	ctx := w.context()
	if ctx == nil {
		return nil, errors.New("the window is still starting: try again in a moment")
	}
	var fs []runtime.FileFilter
	for _, f := range filters {
		fs = append(fs, runtime.FileFilter{DisplayName: f.Name, Pattern: f.Patterns})
	}
	return runtime.OpenMultipleFilesDialog(ctx, runtime.OpenDialogOptions{Title: title, Filters: fs, DefaultDirectory: dir})
}

// ConfirmDialog asks a yes/no question in GTK's own message dialog, which
// the page cannot draw, answer or dismiss (app.HostConfirmer).
func (w *window) ConfirmDialog(title, message string) (bool, error) {
	ctx := w.context()
	if ctx == nil {
		return false, errors.New("the window is still starting: try again in a moment")
	}
	ans, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{Type: runtime.QuestionDialog, Title: title, Message: message,
		Buttons: []string{"Yes", "No"}, DefaultButton: "No", CancelButton: "No"})
	return ans == "Yes", err
}

// SaveFileDialog shows GTK's save dialog.
func (w *window) SaveFileDialog(title, name string) (string, error) {
	ctx := w.context()
	if ctx == nil {
		return "", errors.New("the window is still starting: try again in a moment")
	}
	dir, _ := os.UserHomeDir()
	if d := filepath.Join(dir, "Downloads"); isDir(d) {
		dir = d
	}
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: title, DefaultFilename: name, DefaultDirectory: dir, CanCreateDirectories: true})
}

// TakeOpened hands the files opened with rehome to the UI, once.
func (w *window) TakeOpened() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	o := w.opened
	w.opened = nil
	return o
}

func (w *window) hasOpened() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.opened) > 0
}

// showCode switches the UI to the Code Interpreter, which takes the
// opened files (OpenedFiles) when it shows, and nudges it if it already is.
func (w *window) showCode() {
	ctx := w.context()
	if ctx == nil {
		return
	}
	runtime.WindowExecJS(ctx, `if (location.hash !== '#/code') location.hash = '#/code';`)
	w.mu.Lock()
	n := len(w.opened)
	w.mu.Unlock()
	if w.host != nil {
		w.host.FilesOpened(n) // through the App's emitter: typed in the UI
	}
}

// receive handles a second launch: bring the window forward and open its files.
func (w *window) receive(files []string) {
	w.log.Info("second launch", "files", files)
	ctx := w.context()
	if ctx == nil {
		return
	}
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx) // gtk_window_present: raises and focuses
	var ok []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			ok = append(ok, f)
		}
	}
	if len(ok) > 0 {
		w.mu.Lock()
		w.opened = append(w.opened, ok...)
		w.mu.Unlock()
		w.showCode()
	}
}
