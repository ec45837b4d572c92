package app

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// The file server (GET /api/file): run outputs, uploads and backups only,
// shown inline where that is safe, under a content security policy of
// their own.

// servedFile checks that path is a regular file inside the runs or
// uploads folder of the data directory (symbolic links resolved), and
// returns its resolved path.
func (a *App) servedFile(path string) (string, error) {
	refuse := fmt.Errorf("%s is not a run output, an upload or a backup of rehome", filepath.Base(path))
	if path == "" || !filepath.IsAbs(path) {
		return "", refuse
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is gone: run the code again to recreate it", filepath.Base(path))
		}
		return "", err
	}
	data, err := filepath.EvalSymlinks(a.cfg.DataDir)
	if err != nil {
		return "", err
	}
	ok := false
	for _, dir := range []string{RunsDir, UploadsDir, BackupsDir, SessionsDir} {
		root := filepath.Join(data, dir) + string(filepath.Separator)
		if strings.HasPrefix(real, root) {
			ok = true
		}
	}
	if !ok {
		return "", refuse
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", refuse
	}
	return real, nil
}

// NewFileHandler returns the handler of GET /api/file?path=…: it serves a
// run's output or an upload (nothing else) so the UI can show plots
// inline and offer downloads. Mount it behind the token check; the window
// serves it through its asset server. Responses are sandboxed: an output
// such as an HTML or SVG file can never run script in rehome's origin.
func NewFileHandler(a *App) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		path, err := a.servedFile(r.URL.Query().Get("path"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		name := filepath.Base(path)
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
		h.Set("Cache-Control", "private, max-age=3600")
		ctype := inlineType(name)
		if ctype == "" || r.URL.Query().Get("download") != "" {
			if ctype == "" {
				ctype = "application/octet-stream"
			}
			h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		}
		h.Set("Content-Type", ctype)
		http.ServeContent(w, r, "", st.ModTime(), f)
	})
}

// inlineType is the type of files shown inline (raster images and plain
// text); "" for everything else, which is only ever downloaded.
func inlineType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".txt", ".csv", ".tsv", ".log", ".md":
		return "text/plain; charset=utf-8"
	}
	return ""
}
