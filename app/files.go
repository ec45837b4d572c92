package app

import (
	"os"
	"path/filepath"
	"time"

	"rehome/backend/core"
	"rehome/backend/dataset"
)

// Folders under the data directory that hold files the UI may show or
// save: run outputs and browser uploads. Nothing else is ever served.
const (
	RunsDir    = core.RunsDir
	UploadsDir = core.UploadsDir
	BackupsDir = "backups"
)

// PreviewFile shows a data file's name, size, format, first rows and
// column types, reading only its head.
func (svc *SystemService) PreviewFile(path string) (_ dataset.Preview, err error) {
	a := svc.app
	defer a.guard("PreviewFile", &err)
	path, err = a.readable(path)
	if err != nil {
		return dataset.Preview{}, err
	}
	start := time.Now()
	p, err := dataset.Peek(path, dataset.Options{})
	if err != nil {
		return p, err
	}
	a.log.Info("preview", "file", p.Name, "size", p.Size, "format", p.Format, "read", p.ReadBytes, "ms", time.Since(start).Milliseconds())
	return p, nil
}

// UIEvent records a milestone the UI reached — a file's preview shown, the
// first plot drawn after a drop — in the log with its timings, for support
// and for the window tests, which can read nothing else from a web view.
func (svc *SystemService) UIEvent(event string, data map[string]any) {
	a := svc.app
	if len(event) > 64 {
		event = event[:64]
	}
	args := []any{"event", event}
	n := 0
	for k, v := range data {
		if n++; n > 16 {
			break
		}
		if s, ok := v.(string); ok && len(s) > 256 {
			v = s[:256]
		}
		args = append(args, k, v)
	}
	a.log.Info("ui event", args...)
}

// ExportImage writes the sandbox image as an archive into the uploads
// folder and returns its path, for a browser to download (GET /api/file)
// and carry to an air-gapped machine. The window saves with ChooseSavePath
// and SaveImage instead.
func (svc *SystemService) ExportImage() (string, error) {
	a := svc.app
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, NewUploadID())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, core.ArchiveName())
	if err := a.saveImage(path); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}
