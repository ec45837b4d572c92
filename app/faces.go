package app

import (
	"io"
	"log/slog"

	"rehome/backend/core"
)

// What the faces that serve an App over HTTP (app/bridge, the window's
// file server) read of it. Functions, not methods: an exported method of
// *App is bound to the UI.

// DataDir is the data folder the App serves.
func DataDir(a *App) string { return a.cfg.DataDir }

// Logger is the App's log.
func Logger(a *App) *slog.Logger { return a.log }

// Attach makes e the UI that receives the App's events.
func Attach(a *App, e Emitter) { a.setEmitter(e) }

// KeepUpload keeps a file a page handed over in the data folder's uploads
// (core.KeepUpload).
func KeepUpload(a *App, name string, r io.Reader, size, limit int64) (core.Upload, error) {
	return a.core.KeepUpload(name, r, size, limit)
}
