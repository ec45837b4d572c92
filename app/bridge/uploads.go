package bridge

import (
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

	"rehome/app"
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
func NewUploadHandler(a *app.App) http.Handler {
	return newUploadHandler(a, MaxUpload)
}

func newUploadHandler(a *app.App, limit int64) http.Handler {
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
		name := app.CleanFileName(raw)
		if r.ContentLength > limit {
			reply(http.StatusRequestEntityTooLarge, UploadReply{Error: fmt.Sprintf("%s is %s; the browser can send at most %s. Open it in the rehome window instead, which reads files in place.", name, bytesize.Format(r.ContentLength), bytesize.Format(limit))})
			return
		}
		// Stream to a temporary file while hashing; the same file dropped
		// again lands on the same path instead of a second copy.
		root := filepath.Join(app.DataDir(a), app.UploadsDir)
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
				app.Logger(a).Info("upload already stored", "name", name, "size", n)
				reply(http.StatusOK, UploadReply{Path: path, Name: name, Size: n})
				return
			}
			if err = os.MkdirAll(dir, 0o700); err == nil {
				err = f.CommitAs(path)
			}
		}
		if err != nil {
			app.Logger(a).Warn("upload failed", "name", name, "err", err)
			reply(http.StatusBadRequest, UploadReply{Error: "upload of " + name + " failed: " + err.Error()})
			return
		}
		app.Logger(a).Info("uploaded", "name", name, "size", n)
		reply(http.StatusOK, UploadReply{Path: path, Name: name, Size: n})
	})
}
