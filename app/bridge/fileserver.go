package bridge

import (
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"rehome/app"
	"strings"
)

// The file server (GET /api/file): run outputs, uploads and backups only,
// shown inline where that is safe, under a content security policy of
// their own.

// NewFileHandler returns the handler of GET /api/file?path=…: it serves a
// run's output or an upload (nothing else) so the UI can show plots
// inline and offer downloads. Mount it behind the token check; the window
// serves it through its asset server. Responses are sandboxed: an output
// such as an HTML or SVG file can never run script in rehome's origin.
func NewFileHandler(a *app.App) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		path, err := app.ServedFile(a, r.URL.Query().Get("path"))
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
