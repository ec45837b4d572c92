package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"rehome/backend/atomicfile"
)

// The window's native dialogs: choosing a data file, the files opened
// with rehome, and where to save an output or an export. In a browser
// there are none (errNoWindow): it uploads and downloads instead.

// Window is what the desktop window adds to an App: native file dialogs
// and the files a user opened with rehome. The window's emitter (see
// SetEmitter) implements it; `rehome serve` has no window, and the browser
// uploads files instead (see NewUploadHandler).
type Window interface {
	// OpenFileDialog asks for one existing file; "" when cancelled.
	OpenFileDialog(title string, filters []FileFilter) (string, error)
	// SaveFileDialog asks where to save a file; "" when cancelled.
	SaveFileDialog(title, defaultName string) (string, error)
	// TakeOpened returns, once, the files passed to rehome on its command
	// line ("Open with rehome") or by a second launch.
	TakeOpened() []string
}

// FileFilter is one entry of a file dialog's type list.
type FileFilter struct {
	Name     string // "Data files (CSV, Excel, JSON…)"
	Patterns string // "*.csv;*.tsv"
}

// DataFilter lists the files the Code Interpreter previews.
var DataFilter = FileFilter{
	Name:     "Data files (CSV, TSV, Excel, JSON, Parquet)",
	Patterns: "*.csv;*.tsv;*.tab;*.txt;*.json;*.jsonl;*.ndjson;*.xlsx;*.parquet;*.gz;*.zip",
}

// window returns the attached window, or nil in a browser.
func (a *App) window() Window {
	a.mu.RLock()
	defer a.mu.RUnlock()
	w, _ := a.emitter.(Window)
	return w
}

// pickGiven asks for one file with the native dialog and grants it.
func (a *App) pickGiven(title string, filter FileFilter) (string, error) {
	w := a.window()
	if w == nil {
		return "", errNoWindow
	}
	p, err := w.OpenFileDialog(title, []FileFilter{filter, {Name: "All files", Patterns: "*"}})
	if err == nil && p != "" {
		GrantRead(a, p)
	}
	return p, err
}

// PickFile opens the native dialog to choose a data file; "" when the
// user cancels.
func (svc *SystemService) PickFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose a data file to analyse", DataFilter)
}

// OpenedFiles returns, once, the files the user opened with rehome (from
// the file manager, or a second launch with a file) for the Code
// Interpreter to preview.
func (svc *SystemService) OpenedFiles() []string {
	a := svc.app
	w := a.window()
	if w == nil {
		return []string{}
	}
	files := w.TakeOpened()
	if files == nil {
		files = []string{}
	}
	GrantRead(a, files...)
	return files
}

// SaveOutput asks where to save an output file of a run (a path from a
// run's result) and copies it there. It returns the destination, or ""
// when the user cancels.
func (svc *SystemService) SaveOutput(path string) (string, error) {
	a := svc.app
	w := a.window()
	if w == nil {
		return "", errors.New("saving with a dialog needs the rehome window: in a browser, use the download link")
	}
	src, err := ServedFile(a, path)
	if err != nil {
		return "", err
	}
	dst, err := w.SaveFileDialog("Save "+filepath.Base(src), filepath.Base(src))
	if err != nil || dst == "" {
		return "", err
	}
	if err := copyFile(src, dst); err != nil {
		return "", fmt.Errorf("save %s: %w (pick a folder you can write to)", filepath.Base(dst), err)
	}
	a.log.Info("output saved", "from", src, "to", dst)
	return dst, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// ChooseSavePath asks, with the native save dialog, where to write a file
// named name; "" when the user cancels. In a browser there is no dialog.
func (svc *SystemService) ChooseSavePath(title, name string) (string, error) {
	a := svc.app
	w := a.window()
	if w == nil {
		return "", errNoWindow
	}
	p, err := w.SaveFileDialog(title, CleanFileName(name))
	if err == nil && p != "" {
		grantWrite(a, p)
	}
	return p, err
}
