package app

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
)

// Browser uploads (POST /api/upload): streamed to <data>/uploads, capped,
// hashed, under a clean name; the window reads files in place instead.

// MaxUpload caps one browser upload.
const MaxUpload int64 = 4 << 30

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
