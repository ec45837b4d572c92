package app

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/core"
	"rehome/backend/dataset"
	"rehome/sandbox"
)

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

// Folders under the data directory that hold files the UI may show or
// save: run outputs and browser uploads. Nothing else is ever served.
const (
	RunsDir    = core.RunsDir
	UploadsDir = "uploads"
	BackupsDir = "backups"
)

// MaxUpload caps one browser upload.
const MaxUpload int64 = 4 << 30

// window returns the attached window, or nil in a browser.
func (a *App) window() Window {
	a.mu.RLock()
	defer a.mu.RUnlock()
	w, _ := a.emitter.(Window)
	return w
}

// errNoWindow is what a dialog call answers in a browser.
var errNoWindow = errors.New("file dialogs exist only in the rehome window: in a browser, drop the file on the page or use its Choose file button")

// PreviewFile shows a data file's name, size, format, first rows and
// column types, reading only its head.
func (a *App) PreviewFile(path string) (dataset.Preview, error) {
	path, err := a.readable(path)
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

// PickFile opens the native dialog to choose a data file; "" when the
// user cancels.
func (a *App) PickFile() (string, error) {
	w := a.window()
	if w == nil {
		return "", errNoWindow
	}
	p, err := w.OpenFileDialog("Choose a data file to analyse", []FileFilter{DataFilter, {Name: "All files", Patterns: "*"}})
	if err == nil && p != "" {
		GrantRead(a, p)
	}
	return p, err
}

// OpenedFiles returns, once, the files the user opened with rehome (from
// the file manager, or a second launch with a file) for the Code
// Interpreter to preview.
func (a *App) OpenedFiles() []string {
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
func (a *App) SaveOutput(path string) (string, error) {
	w := a.window()
	if w == nil {
		return "", errors.New("saving with a dialog needs the rehome window: in a browser, use the download link")
	}
	src, err := a.servedFile(path)
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

// UploadReply is what POST /api/upload answers.
type UploadReply struct {
	Path  string `json:"path,omitempty"`
	Name  string `json:"name,omitempty"`
	Size  int64  `json:"size,omitempty"`
	Error string `json:"error,omitempty"`
}

// NewUploadHandler returns the handler of POST /api/upload for the
// browser, which cannot hand over a file's path: the raw body is the
// file, X-File-Name its name (URL-encoded). It streams the body to
// <data>/uploads/<content hash>/<clean name>, up to MaxUpload bytes, and
// answers the path for PreviewFile and RunCode; the same file uploaded
// again is stored once. Mount it behind the token check.
func NewUploadHandler(a *App) http.Handler {
	return newUploadHandler(a, MaxUpload)
}

func newUploadHandler(a *App, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply := func(code int, v UploadReply) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(v)
		}
		if r.Method != http.MethodPost {
			reply(http.StatusMethodNotAllowed, UploadReply{Error: "use POST"})
			return
		}
		raw, err := url.PathUnescape(r.Header.Get("X-File-Name"))
		if err != nil || raw == "" {
			reply(http.StatusBadRequest, UploadReply{Error: "the upload has no file name (X-File-Name)"})
			return
		}
		name := CleanFileName(raw)
		if r.ContentLength > limit {
			reply(http.StatusRequestEntityTooLarge, UploadReply{Error: fmt.Sprintf("%s is %s; the browser can send at most %s. Open it in the rehome window instead, which reads files in place.", name, bytesize.Format(r.ContentLength), bytesize.Format(limit))})
			return
		}
		// Stream to a temporary file while hashing; the same file dropped
		// again lands on the same path instead of a second copy.
		root := filepath.Join(a.cfg.DataDir, UploadsDir)
		if err := os.MkdirAll(root, 0o700); err != nil {
			reply(http.StatusInternalServerError, UploadReply{Error: "cannot store the upload: " + err.Error()})
			return
		}
		// Readable like a file the user saved (umask 022): the sandbox's
		// unprivileged user reads it through its bind mount. The folders
		// stay private.
		f, err := atomicfile.New(filepath.Join(root, "upload"), 0o644)
		if err != nil {
			reply(http.StatusInternalServerError, UploadReply{Error: "cannot store the upload: " + err.Error()})
			return
		}
		defer f.Cleanup()
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r.Body, limit+1))
		if err == nil && n > limit {
			err = fmt.Errorf("the file is larger than %s; open it in the rehome window instead, which reads files in place", bytesize.Format(limit))
		}
		if err == nil && r.ContentLength >= 0 && n != r.ContentLength {
			err = errors.New("the upload was cut short: drop the file again")
		}
		var path string
		if err == nil {
			dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:24])
			path = filepath.Join(dir, name)
			if st, serr := os.Stat(path); serr == nil && st.Size() == n {
				a.log.Info("upload already stored", "name", name, "size", n)
				reply(http.StatusOK, UploadReply{Path: path, Name: name, Size: n})
				return
			}
			if err = os.MkdirAll(dir, 0o700); err == nil {
				err = f.CommitAs(path)
			}
		}
		if err != nil {
			a.log.Warn("upload failed", "name", name, "err", err)
			reply(http.StatusBadRequest, UploadReply{Error: "upload of " + name + " failed: " + err.Error()})
			return
		}
		a.log.Info("uploaded", "name", name, "size", n)
		reply(http.StatusOK, UploadReply{Path: path, Name: name, Size: n})
	})
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

// CleanFileName makes name safe as one file name on every platform: no
// folders, no control characters, none of <>:"/\|?*, no leading dots, not
// a Windows device name, at most 120 bytes with the extension kept.
func CleanFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = filepath.Base("/" + name)
	if name == "/" {
		name = ""
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), strings.ContainsRune(`<>:"/\|?*`, r):
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	name = strings.TrimLeft(strings.TrimSpace(b.String()), ".")
	name = strings.TrimRight(name, ". ")
	stem := strings.ToUpper(strings.TrimSuffix(name, filepath.Ext(name)))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "LPT1", "LPT2", "LPT3":
		name = "_" + name
	}
	if name == "" {
		name = "data"
	}
	if len(name) > 120 {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:120-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	return name
}

// newUploadID names a folder for an upload that is kept apart (time-sortable).
func newUploadID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// UIEvent records a milestone the UI reached — a file's preview shown, the
// first plot drawn after a drop — in the log with its timings, for support
// and for the window tests, which can read nothing else from a web view.
func (a *App) UIEvent(event string, data map[string]any) {
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

// ---- The sandbox's limits as the user set them (Settings → Sandbox) ----

// LimitBounds are the safe range of each limit (sandbox.MachineBounds).
type LimitBounds = sandbox.LimitBounds

// RunLimitBounds returns the range each run limit may be set within on
// this machine: the same bounds `rehome run` applies to its flags.
func (a *App) RunLimitBounds() LimitBounds {
	return a.core.Runs().Bounds()
}

// RunLimits returns the limits each Code Interpreter run gets, and `rehome
// run` too: the user's choice, else the sandbox's defaults.
func (a *App) RunLimits() (sandbox.Limits, error) {
	if err := a.ready(); err != nil {
		return sandbox.DefaultLimits, err
	}
	return a.core.Runs().Saved()
}

// SetRunLimits checks l against RunLimitBounds and the sandbox's own rules,
// stores it and returns what is now in force.
func (a *App) SetRunLimits(l sandbox.Limits) (sandbox.Limits, error) {
	if err := a.ready(); err != nil {
		return sandbox.Limits{}, err
	}
	return a.core.Runs().Save(l)
}

// ResetRunLimits goes back to the sandbox's defaults.
func (a *App) ResetRunLimits() (sandbox.Limits, error) {
	if err := a.ready(); err != nil {
		return sandbox.Limits{}, err
	}
	return a.core.Runs().Reset()
}

// ChooseSavePath asks, with the native save dialog, where to write a file
// named name; "" when the user cancels. In a browser there is no dialog.
func (a *App) ChooseSavePath(title, name string) (string, error) {
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

// ExportImage writes the sandbox image as an archive into the uploads
// folder and returns its path, for a browser to download (GET /api/file)
// and carry to an air-gapped machine. The window saves with ChooseSavePath
// and SaveImage instead.
func (a *App) ExportImage() (string, error) {
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, newUploadID())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, sandbox.ArchiveName())
	if err := a.saveImage(path); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}
